import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import * as text from '@zerda/text';
import { charCounter, loadTokenEncoding, toLengthCounter, tokenCounter, wordCounter } from './length-counters.js';

// Building an encoder parses its rank table once per process (about a second on an idle machine,
// several on a loaded one); later counts are fast. The timeout covers that one-time cost.
describe('length counters', { timeout: 60_000 }, () => {
  it('re-exports the character and word counters of @zerda/text (one implementation)', () => {
    expect(charCounter).toBe(text.charCounter);
    expect(wordCounter).toBe(text.wordCounter);
    expect(charCounter('😀ab')).toBe(3);
    expect(wordCounter('التعلم الآلي، and more')).toBe(4);
  });

  it('counts cl100k_base and o200k_base tokens offline (known counts)', () => {
    const cl100k = tokenCounter('cl100k_base');
    const o200k = tokenCounter('o200k_base');
    expect(cl100k.unit).toBe('tokens');
    expect(cl100k.counterName).toBe('cl100k_base');
    expect(cl100k('hello world')).toBe(2);
    expect(cl100k('')).toBe(0);
    // o200k has far more Arabic merges than cl100k.
    const arabic = 'التعلم الآلي هو فرع من الذكاء الاصطناعي';
    expect(o200k(arabic)).toBeLessThan(cl100k(arabic));
    expect(o200k(arabic)).toBeGreaterThan(3);
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    const counter = tokenCounter();
    expect(counter('<|endoftext|>')).toBeGreaterThan(1);
    expect(() => counter('\ud800 lone surrogate')).not.toThrow();
  });

  it('memoizes consistently, including past the cache size', () => {
    const counter = tokenCounter('cl100k_base', { cacheSize: 2 });
    const inputs = ['alpha beta', 'جملة عربية', 'gamma', 'alpha beta', 'جملة عربية'];
    const fresh = tokenCounter('cl100k_base', { cacheSize: 0 });
    for (const input of inputs) expect(counter(input)).toBe(fresh(input));
  });

  it('toLengthCounter accepts names and any function, and guards foreign results', () => {
    expect(toLengthCounter()).toBe(charCounter);
    expect(toLengthCounter('chars')).toBe(charCounter);
    expect(toLengthCounter('words')).toBe(wordCounter);
    expect(toLengthCounter('tokens')('hello world')).toBe(2);
    expect(toLengthCounter('o200k_base').counterName).toBe('o200k_base');
    const own = tokenCounter();
    expect(toLengthCounter(own)).toBe(own);
    const bytes = toLengthCounter(function utf8Bytes(input: string) {
      return Buffer.byteLength(input);
    });
    expect(bytes('ب')).toBe(2);
    expect(bytes.unit).toBe('units');
    expect(bytes.counterName).toBe('utf8Bytes');
    const broken = toLengthCounter(() => Number.NaN);
    expect(() => broken('x')).toThrow(/must be a finite number >= 0, got number NaN/);
  });

  it('rejects bad input naming the field', () => {
    expect(() => tokenCounter('p50k_base' as never)).toThrow(/encoding must be one of cl100k_base, o200k_base/);
    expect(() => tokenCounter('cl100k_base', { cacheSize: -1 })).toThrow(/options.cacheSize/);
    expect(() => tokenCounter('cl100k_base', { size: 1 } as never)).toThrow(/options.size/);
    expect(() => tokenCounter()(5 as never)).toThrow(/text must be a string, got number 5/);
    expect(() => toLengthCounter('bytes' as never)).toThrow(/counter must be/);
    expect(() => toLengthCounter(5 as never)).toThrow(/counter must be/);
  });

  it('counts exactly what the reference tiktoken port (js-tiktoken) counts, for any text without runs over 64 characters', () => {
    // js-tiktoken (a dev dependency here) is the reference: same rank tables, another implementation, the whole text in one call.
    const require = createRequire(import.meta.url);
    const reference = { cl100k_base: new Tiktoken(require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE), o200k_base: new Tiktoken(require('js-tiktoken/ranks/o200k_base') as TiktokenBPE) };
    const word = fc.oneof(
      fc.constantFrom('retrieval', 'التوليد', 'المعزز', 'بالاسترجاع', 'ﷺ', '😀', '2024', 'C++', '<|endoftext|>', '<|im_start|>', "don't", '\n', '  ', '.', '،', 'مُحَمَّدٌ'),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), fc.constantFrom(' ', '', '\n'), fc.constantFrom<'cl100k_base' | 'o200k_base'>('cl100k_base', 'o200k_base'), (words, separator, encoding) => {
        const input = words.join(separator);
        // Runs are measured in UTF-16 units, as the counter measures them (no u flag).
        fc.pre(!/[^\s]{65}|\s{65}/.test(input));
        expect(tokenCounter(encoding, { cacheSize: 0 })(input)).toBe(reference[encoding].encode(input, [], []).length);
      }),
      { numRuns: 200 },
    );
  });

  it('counts long runs without spaces in linear time, slightly high rather than low (issue 15, defect 6)', () => {
    const counter = tokenCounter('cl100k_base', { cacheSize: 0 });
    // 200 KB of letters without a space: the whole-run encoding took over a minute per 10 KB.
    const letters = Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
    const count = counter(letters);
    expect(count).toBeGreaterThan(200_000 / 8);
    expect(count).toBeLessThan(200_000);
    const sample = letters.slice(0, 1000);
    const require = createRequire(import.meta.url);
    const exact = new Tiktoken(require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE).encode(sample, [], []).length;
    expect(counter(sample)).toBeGreaterThanOrEqual(exact);
    expect(counter(sample)).toBeLessThanOrEqual(Math.ceil(exact * 1.05));
    expect(counter(' '.repeat(100_000))).toBeGreaterThan(0);
    expect(counter('😀'.repeat(50_000))).toBeGreaterThan(0);
  });
});

// Browsers and workers have no synchronous require: the rank table comes through `import()`.
describe('token counters where no synchronous require exists (browsers, workers)', { timeout: 60_000 }, () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  async function freshModuleWithoutRequire(): Promise<typeof import('./length-counters.js')> {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    vi.resetModules();
    return import('./length-counters.js');
  }

  it('fails a count before the table is loaded with ZERDA_NOT_READY naming the loader', async () => {
    const fresh = await freshModuleWithoutRequire();
    const counter = fresh.tokenCounter('o200k_base');
    expect(() => counter('hello world')).toThrow(expect.objectContaining({ code: 'ZERDA_NOT_READY' }));
    expect(() => counter('hello world')).toThrow(/await loadTokenEncoding\('o200k_base'\)/);
  });

  it('counts after counter.load() (or loadTokenEncoding), with the counts Node gets', async () => {
    const fresh = await freshModuleWithoutRequire();
    const counter = fresh.tokenCounter('cl100k_base');
    expect(typeof counter.load).toBe('function');
    await counter.load!();
    await fresh.loadTokenEncoding('cl100k_base'); // a second load is a no-op
    const arabic = 'التعلم الآلي هو فرع من الذكاء الاصطناعي';
    expect(counter('hello world')).toBe(2);
    expect(counter(arabic)).toBe(tokenCounter('cl100k_base')(arabic));
    // Other counters of the same encoding share the loaded table.
    expect(fresh.toLengthCounter('tokens')('hello world')).toBe(2);
  });

  it('rejects an unknown encoding', async () => {
    await expect(loadTokenEncoding('p50k_base' as never)).rejects.toThrow(/encoding must be one of cl100k_base, o200k_base/);
  });
});

describe('counter load()', () => {
  it('is kept when a foreign counter is wrapped, and absent for the character and word counters', async () => {
    let loaded = false;
    const foreign = Object.assign((text: string) => text.length, { load: async () => { loaded = true; } });
    const wrapped = toLengthCounter(foreign);
    expect(typeof wrapped.load).toBe('function');
    await wrapped.load!();
    expect(loaded).toBe(true);
    expect(toLengthCounter((text: string) => text.length).load).toBeUndefined();
    expect(charCounter.load).toBeUndefined();
    expect(wordCounter.load).toBeUndefined();
  });
});

describe('token counting stays as fast in a long-lived process (issue 15: gpt-tokenizer merge cache)', { timeout: 120_000 }, () => {
  it('counting new words after the encoder has seen 2 MB of distinct words costs about what it cost at first', () => {
    const counter = tokenCounter('cl100k_base');
    let next = 0;
    // Distinct words never seen before (English-like and Arabic), as a server counting many users' documents meets them.
    const freshWords = (count: number): string => {
      const parts: string[] = [];
      for (let index = 0; index < count; index++, next++) parts.push(next % 3 === 0 ? `كلمة${next.toString(36)}` : `w${((next * 2_654_435_761) % 4_294_967_291).toString(36)}`);
      return parts.join(' ');
    };
    const timed = (text: string): number => {
      const started = performance.now();
      counter(text);
      return performance.now() - started;
    };
    counter('warm up the rank table');
    const first = Math.min(timed(freshWords(20_000)), timed(freshWords(20_000)), timed(freshWords(20_000)));
    counter(freshWords(300_000));
    const later = Math.min(timed(freshWords(20_000)), timed(freshWords(20_000)), timed(freshWords(20_000)));
    // With gpt-tokenizer's default 100,000-entry cache, every miss of a full cache walks the deleted
    // entries at the front of its Map: this ratio was about 7.
    expect(later / first).toBeLessThan(3);
  });
});
