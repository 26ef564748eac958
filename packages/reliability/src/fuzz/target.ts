import { matchesFilter, parseMetadataFilter, type LengthCounter, type MetadataFilter } from '@zerda/types';
import type { Generator } from './generator.js';

/** What a target can ask of the runner while it runs one case. */
export interface FuzzContext {
  /** Calls an entry point and records how long it took (the runner reports a case's slowest call). */
  call<T>(entry: () => T | Promise<T>): Promise<T>;
}

/** One public entry point (or a short sequence of them, such as index then retrieve) under fuzz. */
export interface FuzzTarget {
  /** `package.entry`, e.g. `text.truncateAtWordBoundary`. */
  name: string;
  /** Relative share of the cases (default 1). */
  weight?: number;
  /** Generates an input, calls the entry point through `context.call`, and checks its invariants. */
  run(generator: Generator, context: FuzzContext): Promise<void> | void;
}

/** The invariants the runner checks; a failed one is a {@link Violation}. */
export type ViolationKind = 'budget' | 'filter' | 'offsets' | 'invariant';

/** An entry point returned normally but broke one of its promises. */
export class Violation extends Error {
  constructor(
    readonly kind: ViolationKind,
    message: string,
  ) {
    super(message);
    this.name = 'Violation';
  }
}

/** Registers a target (sugar for an object literal with a name). */
export function target(name: string, run: FuzzTarget['run'], weight = 1): FuzzTarget {
  return { name, run, weight };
}

/** `counter(text) <= budget` when the budget is a finite number (a call that accepted an infinite budget has nothing to hold). */
export function expectWithinBudget(text: unknown, budget: unknown, counter: LengthCounter, where: string): void {
  if (typeof text !== 'string') throw new Violation('invariant', `${where} returned ${typeof text}, not a string`);
  if (typeof budget !== 'number' || !Number.isFinite(budget)) return;
  const length = counter(text);
  if (length > budget) throw new Violation('budget', `${where}: ${length} ${counter.unit ?? 'units'} for a budget of ${budget}`);
}

/** Every returned chunk matches the filter the call was given (and the filter was a valid one, or the call would have thrown). */
export function expectFilterHeld(chunks: ReadonlyArray<{ docId?: string; source?: string; metadata?: unknown }>, filter: unknown, where: string): void {
  if (filter === undefined) return;
  let parsed: MetadataFilter;
  try {
    parsed = parseMetadataFilter(filter);
  } catch {
    throw new Violation('filter', `${where} accepted a filter that parseMetadataFilter refuses`);
  }
  for (const chunk of chunks) {
    if (!matchesFilter({ metadata: (chunk.metadata ?? {}) as never, docId: chunk.docId, source: chunk.source }, parsed)) {
      throw new Violation('filter', `${where} returned ${JSON.stringify(chunk.docId)}, which does not match its filter`);
    }
  }
}

/** Every span slices `text` to exactly its own text. */
export function expectOffsets(text: string, spans: ReadonlyArray<{ start?: number; end?: number; text: string }>, where: string): void {
  for (const span of spans) {
    if (typeof span.start !== 'number' || typeof span.end !== 'number' || text.slice(span.start, span.end) !== span.text) {
      throw new Violation('offsets', `${where}: span [${span.start}, ${span.end}) does not slice the input to its text`);
    }
  }
}

/** A plain invariant. */
export function expect(condition: boolean, message: string): void {
  if (!condition) throw new Violation('invariant', message);
}

/** `options[key]` when `options` is a plain object (what the entry point actually received), else undefined. */
export function optionOf(options: unknown, key: string): unknown {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return undefined;
  try {
    return (options as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
