import { seededRandom } from '@zerda/types';

/**
 * Helpers over the seeded generator of @zerda/types (mulberry32): the synthetic corpora and the
 * dataset slices must come out identical on every machine and every run.
 */
export class SeededRandom {
  private readonly draw: () => number;

  constructor(seed: number) {
    this.draw = seededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.draw();
  }

  /** An integer in [minimum, maximum] (both included). */
  integer(minimum: number, maximum: number): number {
    return minimum + Math.floor(this.next() * (maximum - minimum + 1));
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let index = copy.length - 1; index > 0; index--) {
      const other = Math.floor(this.next() * (index + 1));
      [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
    }
    return copy;
  }
}
