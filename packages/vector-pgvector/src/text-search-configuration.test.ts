import { describe, expect, it } from 'vitest';
import { chooseTextSearchConfiguration } from './text-search-configuration.js';

describe('chooseTextSearchConfiguration', () => {
  it('picks arabic for Arabic text, with diacritics, tatweel, alef variants and Arabic punctuation', () => {
    for (const text of ['المكتبة العامة', 'مَكْتَبَةٌ كَبِيرَةٌ', 'الـــعربية', 'أإآٱ ى ي ة', 'ما هذا؟ نعم، ربما؛ لا']) {
      expect(chooseTextSearchConfiguration({ text })).toBe('arabic');
    }
  });

  it('picks english for Latin text and simple for mixed, other or letterless text', () => {
    expect(chooseTextSearchConfiguration({ text: 'The library opens at nine.' })).toBe('english');
    expect(chooseTextSearchConfiguration({ text: 'The مكتبة has a Python ورشة بايثون workshop' })).toBe('simple');
    expect(chooseTextSearchConfiguration({ text: 'Библиотека открыта' })).toBe('simple');
    expect(chooseTextSearchConfiguration({ text: '12345 !!' })).toBe('simple');
    expect(chooseTextSearchConfiguration({ text: '' })).toBe('simple');
  });

  it('counts the title with the text', () => {
    expect(chooseTextSearchConfiguration({ text: '42', title: 'دليل المستخدم' })).toBe('arabic');
  });
});
