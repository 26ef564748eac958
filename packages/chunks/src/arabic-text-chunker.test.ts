import { describe, expect, it } from 'vitest';
import { charCounter, wordCounter } from '@zerda/text';
import { ArabicTextChunker } from './arabic-text-chunker.js';
import { RecursiveChunker } from './recursive-chunker.js';
import { expectChunkInvariants, isSingleWord } from './__fixtures__/invariants.js';

describe('ArabicTextChunker', () => {
  it('ends chunks at Arabic sentence terminators ؟ ۔ . !', () => {
    const sentences = ['هل تعرف مكتبة زردا للسياق؟', 'إنها تسترجع النصوص المناسبة للنموذج.', 'وهي تدعم اللغة العربية دعماً كاملاً!', 'یہ جملہ اردو میں ہے۔', 'والجملة الأخيرة هنا.'];
    const text = sentences.join(' ');
    const chunks = new ArabicTextChunker({ size: 45 }).chunk(text, 'ar');
    expectChunkInvariants(text, chunks, { size: 45, counter: charCounter });
    // Short sentences share a chunk when they fit together.
    expect(chunks.map((chunk) => chunk.text)).toEqual([...sentences.slice(0, 3), `${sentences[3]} ${sentences[4]}`]);
  });

  it('cuts a long sentence after ، or ؛ before cutting between words', () => {
    const text = 'ذهب الطالب إلى المكتبة الكبيرة في المدينة، واستعار كتاباً عن تاريخ العلوم العربية؛ ثم عاد إلى البيت مساءً';
    const chunks = new ArabicTextChunker({ size: 45 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 45, counter: charCounter });
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      'ذهب الطالب إلى المكتبة الكبيرة في المدينة،',
      'واستعار كتاباً عن تاريخ العلوم العربية؛',
      'ثم عاد إلى البيت مساءً',
    ]);
  });

  it('prefers cutting before a clause-opening connective (ثم، لكن، بل …) in unpunctuated prose', () => {
    const text = 'قرأ الطالب الدرس الأول بعناية شديدة ثم انتقل إلى الدرس الثاني بسرعة كبيرة لكنه لم يفهمه جيداً';
    const chunks = new ArabicTextChunker({ size: 40 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 40, counter: charCounter });
    expect(chunks.map((chunk) => chunk.text)).toEqual(['قرأ الطالب الدرس الأول بعناية شديدة', 'ثم انتقل إلى الدرس الثاني بسرعة كبيرة', 'لكنه لم يفهمه جيداً']);
    // The plain recursive chunker fills to the limit instead.
    expect(new RecursiveChunker({ size: 40 }).chunk(text)[0]!.text).not.toBe('قرأ الطالب الدرس الأول بعناية شديدة');
  });

  it('never separates a letter from its diacritics, tatweel or joiners', () => {
    const text = 'الْحَمْدُ لِلَّهِ رَبِّ الْعَالَمِينَ الرَّحْمَٰنِ الرَّحِيمِ مَٰلِكِ يَوْمِ الدِّينِ كتـــــاب مُحَمَّدٌ';
    for (const size of [3, 5, 8, 13, 21]) {
      const chunks = new ArabicTextChunker({ size, overlap: Math.floor(size / 2) }).chunk(text);
      expectChunkInvariants(text, chunks, { size, overlap: Math.floor(size / 2), counter: charCounter, oversize: isSingleWord });
    }
    const [word] = new ArabicTextChunker({ size: 4 }).chunk('الرَّحْمَٰنِ');
    expect(word).toMatchObject({ text: 'الرَّحْمَٰنِ', metadata: { oversize: true } });
  });

  it('keeps Arabic-Indic decimals and mixed Arabic/English sentences intact', () => {
    const text = 'بلغت النسبة ٣٫٥ في المئة هذا العام. The model scored 0.72 on SciFact. نموذج RAG يعمل مع BM25 بشكل جيد.';
    const chunks = new ArabicTextChunker({ size: 40 }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 40, counter: charCounter });
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      'بلغت النسبة ٣٫٥ في المئة هذا العام.',
      'The model scored 0.72 on SciFact.',
      'نموذج RAG يعمل مع BM25 بشكل جيد.',
    ]);
    expect(chunks.map((chunk) => chunk.metadata.language)).toEqual(['ar', 'en', 'mixed']);
    expect(chunks.map((chunk) => chunk.metadata.direction)).toEqual(['rtl', 'ltr', 'rtl']);
  });

  it('measures in words as well', () => {
    const text = 'العلم نور والجهل ظلام. ومن طلب العلا سهر الليالي. الصبر مفتاح الفرج.';
    const chunks = new ArabicTextChunker({ size: 5, unit: 'words' }).chunk(text);
    expectChunkInvariants(text, chunks, { size: 5, counter: wordCounter });
    expect(chunks.map((chunk) => chunk.text)).toEqual(['العلم نور والجهل ظلام.', 'ومن طلب العلا سهر الليالي.', 'الصبر مفتاح الفرج.']);
  });
});
