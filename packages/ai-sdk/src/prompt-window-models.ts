/**
 * Context lengths and tokenizers of well-known models, so that `promptWindowMiddleware` can plan a
 * window from the model's id alone. A small table on purpose: a model that is not in it needs
 * `contextLength` (and, for an exact count, `counter`).
 */
import { estimatedTokenCounter, tokenCounter, type LengthCounter } from '@zerda/context';

/** What the table knows of a model: its context length in tokens and how its tokens are counted. */
export interface KnownModel {
  /** Tokens the model reads and writes in one call (prompt + output). */
  contextLength: number;
  /** `cl100k_base` / `o200k_base`: OpenAI's encodings, counted exactly; `estimate`: `estimatedTokenCounter()` (see its margin). */
  tokenizer: 'cl100k_base' | 'o200k_base' | 'estimate';
}

/**
 * Model id prefixes (lower case, provider prefix such as `openai/` removed) and what they mean;
 * the longest matching prefix wins (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`). Context lengths as
 * the providers document them.
 */
export const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = Object.freeze({
  'gpt-3.5-turbo': { contextLength: 16_385, tokenizer: 'cl100k_base' },
  'gpt-4': { contextLength: 8_192, tokenizer: 'cl100k_base' },
  'gpt-4-32k': { contextLength: 32_768, tokenizer: 'cl100k_base' },
  'gpt-4-turbo': { contextLength: 128_000, tokenizer: 'cl100k_base' },
  'gpt-4o': { contextLength: 128_000, tokenizer: 'o200k_base' },
  'gpt-4o-mini': { contextLength: 128_000, tokenizer: 'o200k_base' },
  'chatgpt-4o': { contextLength: 128_000, tokenizer: 'o200k_base' },
  'gpt-4.1': { contextLength: 1_047_576, tokenizer: 'o200k_base' },
  'gpt-5': { contextLength: 400_000, tokenizer: 'o200k_base' },
  o1: { contextLength: 200_000, tokenizer: 'o200k_base' },
  'o1-mini': { contextLength: 128_000, tokenizer: 'o200k_base' },
  o3: { contextLength: 200_000, tokenizer: 'o200k_base' },
  'o4-mini': { contextLength: 200_000, tokenizer: 'o200k_base' },
  'claude-3': { contextLength: 200_000, tokenizer: 'estimate' },
  'claude-sonnet-4': { contextLength: 200_000, tokenizer: 'estimate' },
  'claude-opus-4': { contextLength: 200_000, tokenizer: 'estimate' },
  'claude-haiku-4': { contextLength: 200_000, tokenizer: 'estimate' },
  'gemini-1.5-pro': { contextLength: 2_097_152, tokenizer: 'estimate' },
  'gemini-1.5-flash': { contextLength: 1_048_576, tokenizer: 'estimate' },
  'gemini-2.0-flash': { contextLength: 1_048_576, tokenizer: 'estimate' },
  'gemini-2.5': { contextLength: 1_048_576, tokenizer: 'estimate' },
  'mistral-large': { contextLength: 128_000, tokenizer: 'estimate' },
  'llama-3.1': { contextLength: 128_000, tokenizer: 'estimate' },
  'llama-3.3': { contextLength: 128_000, tokenizer: 'estimate' },
});

/** The table's entry for a model id (longest matching prefix, case-insensitive, after any `provider/`), or undefined. */
export function knownModel(modelId: string): KnownModel | undefined {
  if (typeof modelId !== 'string') return undefined;
  const id = modelId.slice(modelId.lastIndexOf('/') + 1).toLowerCase();
  let best: string | undefined;
  for (const prefix of Object.keys(KNOWN_MODELS)) {
    // A prefix ends where the id does or at a separator: `o1` is not a prefix of `o1x`, `gpt-4` not of `gpt-4o`.
    if (!id.startsWith(prefix) || !/^$|^[-.:@_]/u.test(id.slice(prefix.length, prefix.length + 1))) continue;
    if (best === undefined || prefix.length > best.length) best = prefix;
  }
  return best === undefined ? undefined : KNOWN_MODELS[best];
}

const counters = new Map<KnownModel['tokenizer'], LengthCounter>();

/** The counter for a tokenizer of the table (one per process). */
export function counterFor(tokenizer: KnownModel['tokenizer']): LengthCounter {
  let counter = counters.get(tokenizer);
  if (!counter) {
    counter = tokenizer === 'estimate' ? estimatedTokenCounter() : tokenCounter(tokenizer);
    counters.set(tokenizer, counter);
  }
  return counter;
}
