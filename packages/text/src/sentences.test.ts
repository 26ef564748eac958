import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nextBoundary, splitSentences } from './sentences.js';

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

describe('splitSentences finds boundaries in one pass (issue 15, defect 6)', () => {
  const BOUNDARY = /([.!?…؟۔。！？]+)["'”’»)\]}›]*(?=\s|$)|\r\n|[\n\r\u2028\u2029\u0085]/gu;
  /** The boundaries the former regex found (index, end, terminators), for comparison. */
  function regexBoundaries(text: string): Array<[number, number, string | undefined]> {
    const out: Array<[number, number, string | undefined]> = [];
    const regex = new RegExp(BOUNDARY.source, BOUNDARY.flags);
    let match: RegExpExecArray | null;
    while ((match = regex.exec(text)) !== null) out.push([match.index, match.index + match[0].length, match[1]]);
    return out;
  }

  it('finds exactly the boundaries the former regex found', () => {
    const piece = fc.constantFrom('.', '..', '…', '!', '?', '؟', '۔', '。', '"', '”', ')', '»', ' ', '\n', '\r\n', '\r', '\u2028', 'a', 'B', 'ب', '1', 'e.g.', '3.5', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 25 }), (parts) => {
        const text = parts.join('');
        const found: Array<[number, number, string | undefined]> = [];
        for (let boundary = nextBoundary(text, 0); boundary; boundary = nextBoundary(text, boundary.end)) found.push([boundary.index, boundary.end, boundary.terminators]);
        expect(found).toEqual(regexBoundaries(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('splits 300,000 dots followed by a letter at once', () => {
    const text = `${'.'.repeat(300_000)}x and more. Next sentence.`;
    expect(splitSentences(text).map((sentence) => sentence.text)).toEqual([`${'.'.repeat(300_000)}x and more.`, 'Next sentence.']);
  });
});
