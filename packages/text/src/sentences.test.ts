import { describe, expect, it } from 'vitest';
import { splitSentences } from './sentences.js';

const texts = (input: string) => splitSentences(input).map((sentence) => sentence.text);

describe('splitSentences', () => {
  it('splits English sentences', () => {
    expect(texts('Hello world. How are you? Fine! Thanks.')).toEqual(['Hello world.', 'How are you?', 'Fine!', 'Thanks.']);
  });
  it('does not split after abbreviations, initials or decimals', () => {
    expect(texts('Dr. Smith paid 3.5 dollars, e.g. for J. R. R. Tolkien books. Then he left.')).toEqual([
      'Dr. Smith paid 3.5 dollars, e.g. for J. R. R. Tolkien books.',
      'Then he left.',
    ]);
  });
  it('splits Arabic sentences at ؟ . ! and ۔', () => {
    expect(texts('ما هي عاصمة مصر؟ القاهرة هي العاصمة. شكرا! تم۔ انتهى')).toEqual(['ما هي عاصمة مصر؟', 'القاهرة هي العاصمة.', 'شكرا!', 'تم۔', 'انتهى']);
  });
  it('does not split at Arabic comma or semicolon', () => {
    expect(texts('أولا، ثانيا؛ ثالثا.')).toEqual(['أولا، ثانيا؛ ثالثا.']);
  });
  it('splits mixed text and at line breaks', () => {
    expect(texts('تعلم machine learning في 2024. It is fun\nسطر جديد')).toEqual(['تعلم machine learning في 2024.', 'It is fun', 'سطر جديد']);
  });
  it('does not split after a list number at the start of a line', () => {
    expect(texts('Steps:\n1. Open the file.\n2. Save it.')).toEqual(['Steps:', '1. Open the file.', '2. Save it.']);
    expect(texts('الخطوات:\n١. افتح الملف.')).toEqual(['الخطوات:', '١. افتح الملف.']);
    expect(texts('It costs 5. Then we go.')).toEqual(['It costs 5.', 'Then we go.']);
  });
  it('keeps closing quotes with the sentence', () => {
    expect(texts('He said "stop." Then left.')).toEqual(['He said "stop."', 'Then left.']);
    expect(texts('"Stop!" he said. Then he left.')).toEqual(['"Stop!" he said.', 'Then he left.']);
    // Arabic has no letter case to tell a continuation, so a quoted exclamation ends the sentence.
    expect(texts('قال «توقف!» ثم ذهب.')).toEqual(['قال «توقف!»', 'ثم ذهب.']);
  });
  it('keeps citation marks with their sentence and splits after them (Wikipedia text, English and Arabic)', () => {
    const texts = (input: string) => splitSentences(input).map((sentence) => sentence.text);
    expect(texts('It is one of the five Nobel Prizes.[1] The first prize went to Sully Prudhomme.[2][3] He was French.')).toEqual([
      'It is one of the five Nobel Prizes.[1]',
      'The first prize went to Sully Prudhomme.[2][3]',
      'He was French.',
    ]);
    expect(texts('It was founded in 1920.[note 4] Later it grew.')).toEqual(['It was founded in 1920.[note 4]', 'Later it grew.']);
    expect(texts('يمر بها نهر النيل.[٣] وهو أطول أنهار العالم.')).toEqual(['يمر بها نهر النيل.[٣]', 'وهو أطول أنهار العالم.']);
    // An abbreviation before a citation still does not end the sentence; a bracket that is not a citation mark stays inside.
    expect(texts('Made in the U.S.[1] Navy yards. Done.')).toEqual(['Made in the U.S.[1] Navy yards.', 'Done.']);
    expect(texts('See the list [a, b]. Next.')).toEqual(['See the list [a, b].', 'Next.']);
  });

  it('returns offsets that slice the input', () => {
    const text = '  First one.   Second… third? ';
    for (const sentence of splitSentences(text)) expect(text.slice(sentence.start, sentence.end)).toBe(sentence.text);
  });
  it('returns nothing for blank input and rejects non-strings', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n ')).toEqual([]);
    expect(() => splitSentences(1 as unknown as string)).toThrow('text must be a string, got number 1');
  });
});

describe('splitSentences on runs of terminators (issue 15, defect 6)', () => {
  it('splits 300,000 dots followed by a letter at once', () => {
    const text = `${'.'.repeat(300_000)}x and more. Next sentence.`;
    expect(splitSentences(text).map((sentence) => sentence.text)).toEqual([`${'.'.repeat(300_000)}x and more.`, 'Next sentence.']);
  });
});

describe('splitSentences: the word before a dot, read backwards (no anchored regex over a window)', () => {
  it('keeps initials outside the BMP, Arabic abbreviations and the 32-unit window as before', () => {
    const texts = (text: string) => splitSentences(text).map((sentence) => sentence.text);
    expect(texts('Ask 𝐀. Smith about it. He knows.')).toEqual(['Ask 𝐀. Smith about it.', 'He knows.']);
    expect(texts(`${'x'.repeat(40)}.e.g. Then more. Done.`)).toEqual([`${'x'.repeat(40)}.e.g.`, 'Then more.', 'Done.']);
    expect(texts('وقال د. أحمد إن النتائج جيدة. ثم غادر.')).toEqual(['وقال د. أحمد إن النتائج جيدة.', 'ثم غادر.']);
    expect(texts('See fig. 3 for details. Next one.')).toEqual(['See fig. 3 for details.', 'Next one.']);
    // A lone surrogate before the dot is no letter: the sentence ends there.
    expect(texts('Ends with \ud835. Next.')).toEqual(['Ends with \ud835.', 'Next.']);
  });
});
