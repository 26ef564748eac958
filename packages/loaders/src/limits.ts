import type { DocumentLimits } from './types.js';

/** Every limit with its value (defaults filled in). */
export type ResolvedLimits = Required<DocumentLimits>;

/** The default limits: a 2-core, 4 GB machine stays responsive while a folder of any documents loads. */
export const DEFAULT_LIMITS: ResolvedLimits = {
  timeMs: 120_000,
  memoryMb: 1024,
  maxInflatedBytes: 16 * 1024 * 1024,
  maxZipEntries: 10_000,
  maxPdfStreamBytes: 64 * 1024 * 1024,
  maxHtmlDepth: 200,
  maxHtmlElements: 50_000,
};

/** The limits with the defaults filled in. */
export function resolveLimits(limits: DocumentLimits | undefined): ResolvedLimits {
  return { ...DEFAULT_LIMITS, ...(limits ?? {}) };
}
