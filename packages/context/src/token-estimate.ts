/**
 * A token estimate for models whose tokenizer zerda does not ship (Anthropic, Google, Mistral,
 * Llama …): the larger of the two OpenAI encodings' counts, plus a safety margin.
 */
import { tokenCounter } from '@zerda/context-core';
import { invalidArgument, type LengthCounter } from '@zerda/types';

/** Options of {@link estimatedTokenCounter}. */
export interface EstimatedTokenCounterOptions {
  /**
   * Added to the larger of the cl100k_base and o200k_base counts, as a fraction. Default 0.15: on
   * 3,000 TyDi-en passages the two real encodings disagree by at most 12.8% at the 99th percentile
   * (largest 44.9%, on a short passage); on ARCD (Arabic) cl100k_base counts 2.15× what o200k_base
   * counts, and the estimate takes the larger. See BENCHMARKS.md, "Long conversations and agents".
   */
  margin?: number;
}

/**
 * A counter for a model whose tokenizer is not available offline: `ceil(max(cl100k, o200k) × (1 +
 * margin))`. Two real tokenizers of the same family disagree by up to ~13% on English prose (99th
 * percentile) and by a factor of two on Arabic, so a window planned with this estimate leaves
 * headroom for a third tokenizer that differs from the worse of them by the margin. It overestimates
 * on purpose (a prompt planned with it is shorter than it could be, never longer); with an exact
 * tokenizer at hand, use `tokenCounter` instead. Its `load()` loads both rank tables.
 */
export function estimatedTokenCounter(options: EstimatedTokenCounterOptions = {}): LengthCounter {
  if (options === null || typeof options !== 'object') throw invalidArgument('options', 'an options object { margin? }', options);
  for (const key of Object.keys(options)) if (key !== 'margin') throw invalidArgument(`options.${key}`, 'no other option than margin', key);
  const margin = options.margin ?? 0.15;
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0 || margin > 4) throw invalidArgument('options.margin', 'a number in [0, 4]', margin);
  const cl100k = tokenCounter('cl100k_base');
  const o200k = tokenCounter('o200k_base');
  const count = (text: string): number => {
    if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
    if (text.length === 0) return 0;
    return Math.ceil(Math.max(cl100k(text), o200k(text)) * (1 + margin));
  };
  const load = async (): Promise<void> => {
    await Promise.all([cl100k.load?.(), o200k.load?.()]);
  };
  return Object.assign(count, { unit: 'tokens', counterName: `estimate+${margin}`, load }) as LengthCounter;
}
