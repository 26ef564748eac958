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
