import fc from 'fast-check';

const ENGLISH = ['the', 'library', 'retrieves', 'context', 'Zerda', 'e.g.', 'Dr.', 'U.S.', '3.5', 'C++', 'don’t', 'well-known', 'https://example.com/a/b', 'x'];
// Arabic with harakat, shadda, tatweel, alef variants, ة and ى.
const ARABIC = ['الْعِلْمُ', 'نُورٌ', 'مُحَمَّدٌ', 'كتـــاب', 'المكتبة', 'أحمد', 'إلى', 'آمن', 'ٱلله', 'مدرسة', 'على', 'ثم', 'لكن', 'عَرَبِيّ', '٣٫٥', '١٢٣'];
const PUNCTUATION = ['.', ',', ';', ':', '!', '?', '؟', '،', '؛', '۔', '…', '"', '(', ')', '-', '*', '|', '#'];
const SPACES = [' ', ' ', ' ', '  ', '\n', '\n\n', '\t', '\r\n', '\u00A0'];
const ODD = ['😀', '\u0301', '\u064E', '\u200C', '\u200F', '\uD800', 'ـ'];

/** Text that mixes English, vocalized Arabic, numbers, punctuation, odd Unicode, line and paragraph breaks. */
export const mixedText = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...ENGLISH) },
      { weight: 5, arbitrary: fc.constantFrom(...ARABIC) },
      { weight: 3, arbitrary: fc.constantFrom(...PUNCTUATION) },
      { weight: 8, arbitrary: fc.constantFrom(...SPACES) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD) },
      { weight: 1, arbitrary: fc.integer({ min: 10, max: 90 }).map((length) => 'y'.repeat(length)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    ),
    { maxLength: 160 },
  )
  .map((pieces) => pieces.join(''));

/** Mostly Arabic prose with diacritics, tatweel and Arabic punctuation, plus some English. */
export const arabicText = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...ARABIC) },
      { weight: 1, arbitrary: fc.constantFrom('RAG', 'zerda', 'BM25', 'API') },
      { weight: 2, arbitrary: fc.constantFrom('،', '؛', '؟', '.', '۔', '!') },
      { weight: 9, arbitrary: fc.constantFrom(' ', ' ', '\n', '\n\n') },
    ),
    { maxLength: 200 },
  )
  .map((pieces) => pieces.join(''));

const HEADING = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom('Install', 'Usage', 'التثبيت', 'API', 'Notes')).map(([level, title]) => `${'#'.repeat(level)} ${title}`);
const PARAGRAPH = fc.array(fc.constantFrom('Zerda builds context.', 'It ranks chunks!', 'هل يعمل؟', 'نعم، يعمل.', 'See e.g. the docs.', 'word'), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(' '));
const LIST = fc.array(fc.constantFrom('first item', 'second item with more words', 'عنصر ثالث', 'nested\n  continuation'), { minLength: 1, maxLength: 6 }).map((items) => items.map((item, index) => (index % 2 ? `${index + 1}. ${item}` : `- ${item}`)).join('\n'));
const TABLE = fc.array(fc.constantFrom('| a | b |', '| 1 | 2 |', '| عربي | English |'), { minLength: 1, maxLength: 6 }).map((rows) => `| h1 | h2 |\n|---|---|\n${rows.join('\n')}`);
const CODE = fc
  .array(fc.constantFrom('const a = 1;', '# not a heading', '', 'return compute(a, b) + 42; // a long line of code that goes on', 'z'.repeat(70)), { minLength: 1, maxLength: 8 })
  .map((lines) => `\`\`\`ts\n${lines.join('\n')}\n\`\`\``);

/** Markdown documents: headings, paragraphs, lists, tables and fenced code in any order. */
export const markdownText = fc
  .array(fc.oneof(HEADING, PARAGRAPH, LIST, TABLE, CODE, fc.constant('---'), fc.constant('> a quote\n> more')), { maxLength: 14 })
  .chain((blocks) => fc.tuple(fc.constant(blocks), fc.array(fc.constantFrom('\n\n', '\n', '\n\n\n'), { minLength: blocks.length, maxLength: blocks.length })))
  .map(([blocks, separators]) => blocks.map((block, index) => block + (separators[index] ?? '')).join(''));

/** Chunk sizes with a valid overlap and minimum. */
export const sizing = fc
  .integer({ min: 8, max: 400 })
  .chain((size) =>
    fc.record({
      size: fc.constant(size),
      overlap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: size - 1 })),
      minChunkSize: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: size })),
    }),
  );
