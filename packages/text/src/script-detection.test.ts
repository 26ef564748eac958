import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectLanguage, isArabic, isRightToLeft, scriptMix, tokenScript } from './script-detection.js';

describe('scriptMix', () => {
  it('counts letter shares', () => {
    const mix = scriptMix('تعلم machine learning في 2024');
    expect(mix.arabic).toBeCloseTo(6 / 21);
    expect(mix.latin).toBeCloseTo(15 / 21);
    expect(mix.other).toBe(0);
  });
  it('ignores marks, digits and punctuation; zero for no letters', () => {
    expect(scriptMix('مُحَمَّد')).toEqual({ arabic: 1, latin: 0, other: 0 });
    expect(scriptMix('٢٠٢٤ ، 42 !')).toEqual({ arabic: 0, latin: 0, other: 0 });
  });
  it('counts astral letters once', () => {
    expect(scriptMix('𠀀a')).toEqual({ arabic: 0, latin: 0.5, other: 0.5 });
  });
});

describe('detectLanguage', () => {
  it('detects Arabic, English, mixed and other', () => {
    expect(detectLanguage('ما هي عاصمة مصر؟')).toBe('ar');
    expect(detectLanguage('What is the capital of Egypt?')).toBe('en');
    expect(detectLanguage('تعلم machine learning في 2024')).toBe('mixed');
    expect(detectLanguage('Привет мир')).toBe('other');
    expect(detectLanguage('2024 !')).toBe('other');
    expect(detectLanguage('')).toBe('other');
  });
});

describe('tokenScript / isArabic / isRightToLeft', () => {
  it('classifies tokens', () => {
    expect(tokenScript('كتاب')).toBe('arabic');
    expect(tokenScript('Book')).toBe('latin');
    expect(tokenScript('٢٠٢٤')).toBe('digit');
    expect(tokenScript('книга')).toBe('other');
    expect(tokenScript('!!')).toBe('other');
  });
  it('finds Arabic letters', () => {
    expect(isArabic('hello مرحبا')).toBe(true);
    expect(isArabic('hello ٢٠٢٤ ،')).toBe(false);
  });
  it('reports the dominant direction', () => {
    expect(isRightToLeft('مرحبا بكم hi')).toBe(true);
    expect(isRightToLeft('hello world مرحبا')).toBe(false);
    expect(isRightToLeft('שלום עולם')).toBe(true);
    expect(isRightToLeft('\u200F 123')).toBe(false);
  });
  it('rejects non-strings', () => {
    expect(() => tokenScript(1 as unknown as string)).toThrow('token must be a string, got number 1');
    expect(() => isRightToLeft([] as unknown as string)).toThrow('text must be a string');
    expect(() => detectLanguage(false as unknown as string)).toThrow('text must be a string, got boolean false');
  });
});

describe('scriptMix: the ASCII fast path and the per-character class table count exactly what the letter-run regex counts', () => {
  // The definition: every run of letters of one class, counted in code points.
  function reference(text: string): { arabic: number; latin: number; other: number } {
    const runs = new RegExp(String.raw`([[\p{sc=Arabic}&&\p{L}]]+)|([[\p{sc=Latin}&&\p{L}]]+)|([\p{L}--\p{sc=Arabic}--\p{sc=Latin}]+)`, 'gv');
    const counts = { arabic: 0, latin: 0, other: 0 };
    for (const match of text.matchAll(runs)) {
      const length = [...match[0]].length;
      if (match[1] !== undefined) counts.arabic += length;
      else if (match[2] !== undefined) counts.latin += length;
      else counts.other += length;
    }
    const total = counts.arabic + counts.latin + counts.other;
    return total === 0 ? counts : { arabic: counts.arabic / total, latin: counts.latin / total, other: counts.other / total };
  }

  it('on mixed English, Arabic (diacritics, tatweel, alef variants), other scripts, marks, punctuation and any code point', () => {
    const pieces = ['a', 'Z', ' ', '1', 'é', 'ß', 'İ', 'م', 'أ', 'إ', 'آ', 'ـ', 'َ', '،', '؟', '—', '’', 'א', 'ж', '中', '𞸀', '𝐀', '\u200d', '.', 'ﷺ', '\ud800'];
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...pieces) },
            // Any BMP code unit (lone surrogates included) and any code point: every block of the table.
            { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) },
            { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)) },
          ),
          { maxLength: 40 },
        ),
        (parts) => {
        const text = parts.join('');
        const mix = scriptMix(text);
        const expected = reference(text);
        expect(mix.arabic).toBeCloseTo(expected.arabic, 12);
        expect(mix.latin).toBeCloseTo(expected.latin, 12);
        expect(mix.other).toBeCloseTo(expected.other, 12);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('scriptMix counts every single code point as the regex classifies it', () => {
  it('for each BMP code unit and a stride of astral code points', () => {
    const classes = new RegExp(String.raw`^(?:([[\p{sc=Arabic}&&\p{L}]])|([[\p{sc=Latin}&&\p{L}]])|([\p{L}--\p{sc=Arabic}--\p{sc=Latin}]))$`, 'v');
    for (let code = 0; code <= 0x10ffff; code += code < 0x10000 ? 1 : 61) {
      const character = String.fromCodePoint(code);
      const match = classes.exec(character);
      const expected = match === null ? 'none' : match[1] !== undefined ? 'arabic' : match[2] !== undefined ? 'latin' : 'other';
      const mix = scriptMix(character);
      const actual = mix.arabic === 1 ? 'arabic' : mix.latin === 1 ? 'latin' : mix.other === 1 ? 'other' : 'none';
      if (actual !== expected) expect(`U+${code.toString(16)} ${actual}`).toBe(`U+${code.toString(16)} ${expected}`);
    }
  });
});
