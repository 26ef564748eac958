import { tokenCounter } from '@zerda/context-core';
import { snowballStemArabic } from '@zerda/text';
import type { FuzzTarget } from '../target.js';
import { chunkAndVectorTargets } from './chunks-vectors.js';
import { contextTargets } from './context.js';
import { coreTargets } from './core.js';
import { retrieverTargets } from './retriever.js';
import { textTargets } from './text.js';
import { typesTargets } from './types.js';

/** Every target of the fuzz, package by package. */
export const ALL_TARGETS: readonly FuzzTarget[] = [...typesTargets, ...textTargets, ...coreTargets, ...retrieverTargets, ...chunkAndVectorTargets, ...contextTargets];

/**
 * Loads what the entry points load lazily on first use (token rank tables, the Snowball stemmer),
 * so that a one-time module load is not mistaken for a slow call.
 */
export function warmUp(): void {
  tokenCounter('cl100k_base')('warm up');
  tokenCounter('o200k_base')('warm up');
  snowballStemArabic('المكتبة');
}
