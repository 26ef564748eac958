import { ZerdaError } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { foldDigits, normalizeArabic, normalizeText } from './normalization.js';

describe('normalizeArabic', () => {
  it('strips harakat, tanween, shadda and sukun', () => {
    expect(normalizeArabic('مُحَمَّدٌ')).toBe('محمد');
    expect(normalizeArabic('الْكِتَابُ')).toBe('الكتاب');
  });
  it('strips tatweel', () => {
    expect(normalizeArabic('العـــربية')).toBe('العربية');
  });
  it('unifies alef variants and alef maqsura', () => {
    expect(normalizeArabic('أحمد إسلام آمن ٱلله')).toBe('احمد اسلام امن الله');
    expect(normalizeArabic('على مستشفى')).toBe('علي مستشفي');
  });
  it('strips dagger alef and Quranic marks', () => {
    expect(normalizeArabic('هٰذا')).toBe('هذا');
    expect(normalizeArabic('الرَّحِيمِ ۝ ۖ')).toBe('الرحيم  ');
  });
  it('folds decomposed hamza and madda like the composed letters', () => {
    expect(normalizeArabic('\u0627\u0654\u062D\u0645\u062F')).toBe('احمد');
    expect(normalizeArabic('\u0627\u0653\u0645\u0646')).toBe('امن');
    expect(normalizeArabic('\u0645\u0648\u0654\u0645\u0646')).toBe('مؤمن');
    expect(normalizeArabic('\u0645\u0648\u0654\u0645\u0646', { hamzaSeats: true })).toBe('مومن');
  });
  it('keeps ة and hamza seats unless asked', () => {
    expect(normalizeArabic('مدرسة مؤتمر قائد')).toBe('مدرسة مؤتمر قائد');
    expect(normalizeArabic('مدرسة', { tehMarbuta: true })).toBe('مدرسه');
    expect(normalizeArabic('مؤتمر قائد', { hamzaSeats: true })).toBe('موتمر قايد');
    expect(normalizeArabic('سماء', { hamzaSeats: true })).toBe('سماء');
  });
  it('leaves non-Arabic text untouched', () => {
    expect(normalizeArabic('Hello World 123')).toBe('Hello World 123');
  });
  it('rejects bad input with a ZerdaError naming the parameter', () => {
    expect(() => normalizeArabic(5 as unknown as string)).toThrow(ZerdaError);
    expect(() => normalizeArabic(5 as unknown as string)).toThrow('text must be a string, got number 5');
    expect(() => normalizeArabic('x', { tehMarbuta: 'yes' } as unknown as object)).toThrow('options.tehMarbuta must be a boolean');
    expect(() => normalizeArabic('x', { teh: true } as unknown as object)).toThrow('options.teh');
  });
});

describe('foldDigits', () => {
  it('maps Arabic-Indic and Persian digits to ASCII', () => {
    expect(foldDigits('٢٠٢٤')).toBe('2024');
    expect(foldDigits('۱۴۰۳ و ٣')).toBe('1403 و 3');
    expect(foldDigits('abc 42')).toBe('abc 42');
  });
  it('rejects non-strings', () => {
    expect(() => foldDigits(null as unknown as string)).toThrow('text must be a string, got null');
  });
});

describe('normalizeText', () => {
  it('lower-cases, folds digits and normalises Arabic', () => {
    expect(normalizeText('تعلّم Machine Learning في ٢٠٢٤')).toBe('تعلم machine learning في 2024');
  });
  it('applies NFKC: presentation forms, ligatures, full-width letters', () => {
    expect(normalizeText('ﻻ')).toBe('لا');
    expect(normalizeText('ＡＢＣ ﬁle')).toBe('abc file');
  });
  it('removes invisible format characters', () => {
    expect(normalizeText('\u200Fمرحبا\u202E abc\u00ADdef')).toBe('مرحبا abcdef');
  });
  it('keeps line structure', () => {
    expect(normalizeText('A\nB')).toBe('a\nb');
  });
  it('is idempotent when a removal joins lone surrogates into a letter', () => {
    const once = normalizeText('\uD835\u0653\uDCD0');
    expect(once).toBe('a');
    expect(normalizeText(once)).toBe(once);
  });
  it('is idempotent on mixed text', () => {
    const once = normalizeText('أَهْلاً World ٣ ﻷ ǅ İ');
    expect(normalizeText(once)).toBe(once);
  });
});
