import { describe, expect, it } from 'vitest';
import { Analyzer, DEFAULT_ANALYZER_OPTIONS, defaultAnalyzer } from './analyzer.js';
import { tokenize, visitTokens } from './tokenizer.js';

describe('Analyzer', () => {
  it('analyses mixed Arabic/English text per token script', () => {
    expect(defaultAnalyzer.analyze('تعلم machine learning في ٢٠٢٤')).toEqual(['تعلم', 'machin', 'learn', '2024']);
  });
  it('normalises, drops stopwords and stems Arabic', () => {
    expect(defaultAnalyzer.analyze('ذهبتُ إلى المَكْتَبَةِ والكتاب في العـــربية')).toEqual(['ذهبت', 'مكتب', 'كتاب', 'عرب']);
  });
  it('stems English with Porter2 and drops English stopwords', () => {
    expect(defaultAnalyzer.analyze('The Running of the studies')).toEqual(['run', 'studi']);
  });
  it('keeps duplicates and order', () => {
    expect(defaultAnalyzer.analyze('books book BOOKS')).toEqual(['book', 'book', 'book']);
  });
  it('returns source positions', () => {
    const text = 'قرأتُ الكتابَ';
    const analyzed = defaultAnalyzer.analyzeTokens(text);
    expect(analyzed.map((entry) => entry.term)).toEqual(['قرات', 'كتاب']);
    for (const entry of analyzed) expect(text.slice(entry.token.start, entry.token.end)).toBe(entry.token.text);
    expect(analyzed[1]?.token.text).toBe('الكتابَ');
  });
  it('expands compatibility ligatures into their words', () => {
    const terms = defaultAnalyzer.analyze('محمد ﷺ');
    expect(terms[0]).toBe('محمد');
    expect(terms).toContain('الله');
  });
  it('honours options', () => {
    expect(new Analyzer({ stem: false }).analyze('The libraries المكتبات')).toEqual(['libraries', 'المكتبات']);
    expect(new Analyzer({ stopwords: false, stem: false }).analyze('the في')).toEqual(['the', 'في']);
    expect(new Analyzer({ arabic: { stemmer: 'snowball' } }).analyze('يكتبون')).toEqual(['يكتب']);
    expect(new Analyzer({ arabic: { stemmer: 'none' } }).analyze('المكتبات')).toEqual(['المكتبات']);
    expect(new Analyzer({ english: { stemmer: 'none' } }).analyze('running')).toEqual(['running']);
    expect(new Analyzer({ minTokenLength: 3 }).analyze('ai is big data')).toEqual(['big', 'data']);
    expect(new Analyzer({ arabic: { tehMarbuta: true, stemmer: 'none' } }).analyze('مدرسة')).toEqual(['مدرسه']);
  });
  it('resolves options to plain JSON', () => {
    expect(JSON.parse(JSON.stringify(defaultAnalyzer.options))).toEqual(DEFAULT_ANALYZER_OPTIONS);
    expect(new Analyzer({ arabic: { stemmer: 'snowball' } }).options.arabic).toEqual({ tehMarbuta: false, hamzaSeats: false, stemmer: 'snowball' });
  });
  it('rejects bad options and input with a ZerdaError naming the field', () => {
    expect(() => new Analyzer({ arabic: { stemmer: 'root' } } as never)).toThrow('options.arabic.stemmer must be one of "light", "snowball", "none", got string "root"');
    expect(() => new Analyzer({ minTokenLength: 0 })).toThrow('options.minTokenLength must be an integer >= 1, got number 0');
    expect(() => new Analyzer({ stemming: true } as never)).toThrow('options.stemming');
    expect(() => new Analyzer('x' as never)).toThrow('options must be an object');
    expect(() => defaultAnalyzer.analyze(7 as unknown as string)).toThrow('text must be a string, got number 7');
    expect(() => defaultAnalyzer.analyzeTokens(undefined as unknown as string)).toThrow('text must be a string, got undefined');
  });
});

describe('visitTokens', () => {
  it('visits exactly the tokens of tokenize(), without Token objects (English, Arabic with harakat and tatweel, digits)', () => {
    const text = 'The libraries of القاهرةُ والمكتبات، مكتبـــة؟ 2024م and ٣ كتب';
    const visited: Array<{ text: string; start: number; end: number; script: string }> = [];
    visitTokens(text, (start, end, script) => visited.push({ text: text.slice(start, end), start, end, script }));
    expect(visited).toEqual(tokenize(text));
  });

  it('rejects a text that is not a string and a visit that is not a function, naming them', () => {
    expect(() => visitTokens(null as never, () => {})).toThrow(/text must be a string/);
    expect(() => visitTokens('x', 3 as never)).toThrow(/visit/);
  });
});

describe('Analyzer.forEachTokenTerms', () => {
  it('visits every token of tokenize() with the terms termsOfToken gives it (English, Arabic with harakat and tatweel, stopwords, expansions)', () => {
    const analyzer = new Analyzer();
    const text = 'The libraries of القاهرةُ والمكتبات، ﷺ and ½ of GPT-4 مكتبـــة؟ أإآ';
    const visited: Array<{ word: string; start: number; end: number; script: string; terms: string[] }> = [];
    analyzer.forEachTokenTerms(text, (word, start, end, script, terms) => {
      visited.push({ word, start, end, script, terms: terms === null ? [] : typeof terms === 'string' ? [terms] : [...terms] });
    });
    expect(visited).toEqual(tokenize(text).map((token) => ({ word: token.text, start: token.start, end: token.end, script: token.script, terms: [...analyzer.termsOfToken(token)] })));
    expect(visited.find((entry) => entry.word === 'The')!.terms).toEqual([]);
    expect(visited.find((entry) => entry.word === 'ﷺ')!.terms.length).toBeGreaterThan(1);
  });

  it('rejects a text that is not a string and a visit that is not a function, naming them', () => {
    const analyzer = new Analyzer();
    expect(() => analyzer.forEachTokenTerms(5 as never, () => {})).toThrow(/text must be a string/);
    expect(() => analyzer.forEachTokenTerms('x', 'f' as never)).toThrow(/visit/);
  });
});

describe('Analyzer.termsOfToken', () => {
  it('gives every token exactly the terms analyze() gives its text (English, Arabic, stopwords, expansions)', () => {
    const analyzer = new Analyzer();
    const text = 'The libraries of القاهرةُ والمكتبات، ﷺ and ½ of GPT-4 مكتبـــة؟';
    const fromTokens = tokenize(text).flatMap((token) => [...analyzer.termsOfToken(token)]);
    expect(fromTokens).toEqual(analyzer.analyze(text));
    expect(analyzer.termsOfToken({ text: 'the', script: 'latin' })).toEqual([]);
    expect(analyzer.termsOfToken({ text: 'في', script: 'arabic' })).toEqual([]);
  });

  it('rejects what is not a token, naming the field', () => {
    const analyzer = new Analyzer();
    expect(() => analyzer.termsOfToken(null as never)).toThrow(/token/);
    expect(() => analyzer.termsOfToken({ text: 5, script: 'latin' } as never)).toThrow(/token\.text/);
    expect(() => analyzer.termsOfToken({ text: 'x', script: 'greek' } as never)).toThrow(/token\.script/);
  });
});
