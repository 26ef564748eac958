// Defect 1 of the spec: package root exports. Every public name of every core package is importable
// from its own package and from the umbrella, and none is shadowed or undefined.
import { describe, expect, it } from 'vitest';
import * as types from '@zerda/types';
import * as text from '@zerda/text';
import * as retriever from '@zerda/retriever';
import * as core from '@zerda/context-core';
import * as composer from '@zerda/composer';
import * as legacy from '@zerda/legacy-compat';
import * as memory from '@zerda/vector-memory';
import * as umbrella from './index.js';

const packages = { '@zerda/types': types, '@zerda/text': text, '@zerda/retriever': retriever, '@zerda/context-core': core, '@zerda/composer': composer, '@zerda/legacy-compat': legacy, '@zerda/vector-memory': memory };

describe('defect 1: package root exports', () => {
  for (const [name, module] of Object.entries(packages)) {
    it(`re-exports every runtime name of ${name}, defined and identical`, () => {
      const names = Object.keys(module);
      expect(names.length).toBeGreaterThan(0);
      for (const exported of names) {
        const value = (module as Record<string, unknown>)[exported];
        expect(value, `${name} exports ${exported} as undefined`).toBeDefined();
        expect((umbrella as Record<string, unknown>)[exported], `@zerda/context is missing ${exported} of ${name}`).toBe(value);
      }
    });
  }

  it('exports the documented engine names and the legacy names (which the spec shadowed with None)', () => {
    const documented = [
      'ContextEngine', 'ContextManager', 'queryHeader', 'tupleToScored',
      'QueryAnalyzer', 'ChunkFilter', 'CompositeRanker', 'ContextGuard', 'SmartContextComposer',
      'ComplexityBasedAllocation', 'EqualBudgetAllocation', 'ContextCache', 'ConversationHistory', 'AdaptiveLearningSystem',
      'HybridRetriever', 'VectorRetriever', 'KeywordRetriever', 'MetadataRetriever', 'MemoryVectorStore',
      'validateChunk', 'PrefixDeduplication', 'HashDeduplication', 'ScoreRanking', 'GreedyCompression',
      'charCounter', 'wordCounter', 'tokenCounter', 'truncateAtWordBoundary', 'resolveConfig', 'ZerdaError', 'matchesFilter',
      'normalizeArabic', 'Analyzer', 'splitSentences',
    ];
    for (const name of documented) expect((umbrella as Record<string, unknown>)[name], name).toBeDefined();
  });
});
