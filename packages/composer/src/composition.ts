import { BoundedCache, charCounter } from '@zerda/text';
import { invalidArgument } from '@zerda/types';
import type { LengthCounter } from '@zerda/types';
import { arrangePassages, type Candidate, type FittedChunk, type Ordering } from './passages.js';
import type { BuiltInTemplateContext, ComposerPassage, ResolvedTemplate } from './templates.js';

/** Everything one `compose()` call renders and measures with. */
export interface CompositionSetup {
  candidates: Candidate[];
  budget: number;
  counter: LengthCounter;
  template: ResolvedTemplate;
  templateContext: BuiltInTemplateContext;
  ordering: Ordering;
  gapMarker: string;
  /** Characters a cut chunk must keep to be worth including. */
  minChunkLength: number;
  /**
   * Set when the query asks for evidence rather than a short answer (it asks no question): every
   * chunk the value-based fit uses keeps at least `minChunkUnits` counter units, and each further
   * sentence of a chunk is worth `spread` times less per sentence the chunk already keeps. `floor`: the
   * composer still compares the value fit with lead packing of the ranking and keeps the better (a
   * keyword search looks a fact up as a question does); without it a claim's evidence stays spread.
   */
  evidence?: { minChunkUnits: number; spread: number; floor: boolean };
}

/** Measured pieces per counter (see `Composition.measurePiece`). */
const PIECE_LENGTHS = new WeakMap<LengthCounter, BoundedCache<string, number>>();
const PIECE_MEMO_SIZE = 20_000;

/** A rendered context and the passages it was rendered from. */
export interface Rendering {
  context: string;
  passages: ComposerPassage[];
}

/**
 * The measuring tape of one composition: renders any choice of fitted chunks with the real template
 * and ordering, and measures the whole string with the caller's counter. Fitting decisions are made
 * against these exact measurements, so headers, separators, footers and a counter that is not
 * additive (tokens) are all accounted for.
 */
export class Composition {
  readonly setup: CompositionSetup;
  readonly #passageTexts = new WeakMap<Candidate, Map<string, string>>();
  /** Frame costs measured in this composition, by the template's frame key (see `passageOverhead`). */
  readonly frameOverheads = new Map<string, number>();

  constructor(setup: CompositionSetup) {
    this.setup = setup;
  }

  /**
   * {@link measure} for a piece of a chunk (a sentence, the text between two): memoised per counter,
   * since the same sentences come back query after query and a tokenizer is the costly part of
   * fitting to a token budget. Counters are taken to be functions of the text alone; the final
   * context is always measured afresh, so a counter that is not still cannot break the budget. The
   * character counter is not memoised (counting is cheaper than looking up).
   */
  measurePiece(text: string): number {
    // Counting code points costs less than the memo's hashing of the key: measured directly.
    if (this.setup.counter === charCounter) return this.measure(text);
    let memo = PIECE_LENGTHS.get(this.setup.counter);
    if (!memo) {
      memo = new BoundedCache<string, number>(PIECE_MEMO_SIZE, { maxWeight: 2_000_000, maxEntryWeight: 4_096 });
      PIECE_LENGTHS.set(this.setup.counter, memo);
    }
    let length = memo.get(text);
    if (length === undefined) {
      length = this.measure(text);
      memo.set(text, length);
    }
    return length;
  }

  /** The counter's value for `text`, checked: a counter must return a number (NaN is refused). */
  measure(text: string): number {
    const value: unknown = this.setup.counter(text);
    if (typeof value !== 'number' || Number.isNaN(value)) {
      throw invalidArgument('options.counter', 'a function returning a number (the length of its argument)', value);
    }
    return value;
  }

  render(fitted: readonly FittedChunk[]): Rendering {
    if (fitted.length === 0) return { context: '', passages: [] };
    const passages = arrangePassages(fitted, this.setup.ordering, this.setup.gapMarker, this.#passageTexts);
    const context: unknown = this.setup.template.render(passages, this.setup.templateContext);
    if (typeof context !== 'string') {
      throw invalidArgument('options.template', 'a template returning a string', context);
    }
    return { context, passages };
  }

  /**
   * A counter for `truncateAtWordBoundary` that measures, for a kept text, the whole context
   * `fittedOf` builds around it (infinite when it builds none). It reports the unit of the caller's
   * counter, so that a cut in characters is searched for by interpolation.
   */
  contextCounter(fittedOf: (kept: string) => readonly FittedChunk[] | undefined): LengthCounter {
    const unit = this.setup.counter.unit;
    const count = (kept: string): number => {
      const fitted = fittedOf(kept);
      return fitted ? this.measure(this.render(fitted).context) : Number.POSITIVE_INFINITY;
    };
    return unit === undefined ? count : Object.assign(count, { unit });
  }

  /** True when the rendered context of `fitted` is within the budget. */
  fits(fitted: readonly FittedChunk[]): boolean {
    return this.measure(this.render(fitted).context) <= this.setup.budget;
  }
}
