import fc from 'fast-check';
import { Analyzer, splitSentences, tokenize } from '@zerda/text';
import { describe, expect, it } from 'vitest';
import { answerCues } from './answer-cues.js';
import { analyzeChunk } from './sentence-value.js';

// Words that exercise every cue and the analyzer: English and Arabic (harakat, tatweel, alef
// variants), names, places, numbers in both digit sets, punctuation ، ؛ ؟, abbreviations, long clauses.
const WORDS = [
  'The', 'city', 'is', 'a', 'museum', 'in', 'Paris', 'of', 'Ibn', 'al', 'Haytham', 'because', 'founded', '1920', 'May', 'million',
  'مدينة', 'تقع', 'جنوب', 'عام', '١٩٢٠', 'بسبب', 'هو', 'ابن', 'الملك', 'مُحَمَّدٌ', 'الـمدينة', 'أحمد', 'إسلام', 'آخر', 'في',
  'Dr.', 'U.S.', 'e.g.', '3.5', 'C++', 'naïve', 'Ｐaris', 'ﷺ',
];
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '! ', '? ', '، ', '؛ ', '؟ ', '\n', ' (', ') ', ' — ', '; '];
const chunkText = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { minLength: 0, maxLength: 120, size: 'max' })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(''));

describe('analyzeChunk reads each unit as the analyzer and the cue reader read it alone', () => {
  it('per unit: the terms of analyze(unit text) and the cues of answerCues(unit text), units covering the sentences', () => {
    const analyzer = new Analyzer();
    fc.assert(
      fc.property(chunkText, (text) => {
        const analysis = analyzeChunk(text, analyzer);
        const units = analysis.sentences;
        expect(analysis.termStarts).toHaveLength(units.length + 1);
        expect(analysis.cues).toHaveLength(units.length);
        units.forEach((unit, index) => {
          expect(text.slice(unit.start, unit.end)).toBe(unit.text);
          // A unit's tokens are exactly its text's tokens (units end at boundaries, never inside a word).
          expect(tokenize(unit.text).length).toBe(tokenize(text).filter((token) => token.start >= unit.start && token.start < unit.end).length);
          expect(analysis.terms.slice(analysis.termStarts[index], analysis.termStarts[index + 1])).toEqual(analyzer.analyze(unit.text));
          expect(analysis.cues[index]).toEqual(answerCues(unit.text));
        });
        // Pieces are numbered within their sentence, and every sentence has at least one unit.
        const sentences = splitSentences(text).length;
        expect(new Set(analysis.sentenceIndex).size).toBe(sentences);
        analysis.pieceIndex.forEach((piece, index) => {
          expect(piece).toBe(index > 0 && analysis.sentenceIndex[index - 1] === analysis.sentenceIndex[index] ? analysis.pieceIndex[index - 1]! + 1 : 0);
        });
      }),
      { numRuns: 400 },
    );
  });
});
