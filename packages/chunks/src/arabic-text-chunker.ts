import { detectLanguage, isRightToLeft, normalizeArabic } from '@zerda/text';
import type { ChunkConfig, ChunkConfigInput } from './chunk-config.js';
import { BaseChunker } from './base-chunker.js';
import type { AnnotatedSpan } from './chunk-builder.js';
import { packUnits } from './packing.js';
import { PROSE_LEVELS, cutAt, segment, type Level, type Measure, type Splitter } from './segmentation.js';

// Words that open a new clause in running Arabic (and a few English ones for mixed text), in
// normalized form (no diacritics or tatweel, alef variants unified). Arabic prose often chains
// clauses with these instead of punctuation, so when a sentence must be cut, cutting before one
// of them keeps each part readable.
const CONNECTIVES = new Set([
  'ثم', 'لكن', 'ولكن', 'لكنه', 'لكنها', 'بل', 'حيث', 'اذ', 'كما', 'وكما', 'اما', 'واما', 'لذلك', 'ولذلك', 'لذا', 'ولذا',
  'كذلك', 'وكذلك', 'فان', 'بينما', 'وبينما', 'لان', 'ولان', 'الا', 'غير', 'وعليه', 'بالتالي', 'وبالتالي', 'اي', 'مثلا',
  'however', 'but', 'whereas', 'although', 'because', 'therefore', 'meanwhile', 'moreover',
]);
const LEADING_PUNCTUATION = /^[\p{P}\p{S}]+/u;

/** Cuts before a word that opens a clause (see CONNECTIVES). */
const splitConnectives: Splitter = (text, start, end) => {
  const cuts: number[] = [];
  const regex = /\S+/gu;
  const scope = text.slice(start, end);
  let match: RegExpExecArray | null;
  let first = true;
  while ((match = regex.exec(scope)) !== null) {
    if (!first) {
      const word = normalizeArabic(match[0].replace(LEADING_PUNCTUATION, '')).toLowerCase();
      if (CONNECTIVES.has(word)) cuts.push(start + match.index);
    }
    first = false;
  }
  return cutAt(text, start, end, cuts);
};

// The prose hierarchy with the connective level between clauses and words.
const ARABIC_LEVELS: readonly Level[] = [
  ...PROSE_LEVELS.filter((level) => level.strength > 2),
  { name: 'connective', strength: 2.5, split: splitConnectives },
  ...PROSE_LEVELS.filter((level) => level.strength <= 2),
];

/**
 * A sentence-first chunker for Arabic and mixed Arabic/English text. Boundaries, strongest first:
 * paragraphs, lines, sentences (after . ! ? … and the Arabic ؟ ۔, as `splitSentences` of
 * @zerda/text finds them), clauses (after ، ؛ , ; :), before clause-opening connectives (ثم، لكن،
 * بل، حيث، كما …), then words. It never cuts inside a word, so a letter always stays with its
 * diacritics (harakat, shadda), tatweel and joiners. Each chunk records `metadata.language`
 * (`ar`, `en`, `mixed`, `other`) and `metadata.direction` (`rtl` or `ltr`). Offsets refer to the
 * original, unnormalized text.
 */
export class ArabicTextChunker extends BaseChunker {
  constructor(config?: ChunkConfigInput | ChunkConfig) {
    super(config, 'config');
  }

  protected spans(text: string, measure: Measure): AnnotatedSpan[] {
    const units = segment(text, 0, text.length, ARABIC_LEVELS, measure, this.config.size, Number.POSITIVE_INFINITY);
    return packUnits(text, units, { ...this.config, measure }).map((span) => {
      const slice = text.slice(span.start, span.end);
      return { ...span, metadata: { language: detectLanguage(slice), direction: isRightToLeft(slice) ? 'rtl' : 'ltr' } };
    });
  }
}
