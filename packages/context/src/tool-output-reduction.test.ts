import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { charCounter, tokenCounter } from '@zerda/context';
import { reduceJson, reduceText, segmentText } from './tool-output-reduction.js';

describe('segmentText', () => {
  it('covers the text with contiguous segments, never splitting a surrogate pair', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.constant('\n'), fc.constant('😀'.repeat(1500)), fc.constant('x'.repeat(5000))), { maxLength: 20 }), (pieces) => {
        const text = pieces.join('');
        const segments = segmentText(text);
        let at = 0;
        for (const segment of segments) {
          expect(segment.start).toBe(at);
          expect(segment.end).toBeGreaterThan(segment.start);
          const code = text.charCodeAt(segment.end);
          if (segment.end < text.length) expect(code >= 0xdc00 && code <= 0xdfff).toBe(false);
          at = segment.end;
        }
        expect(at).toBe(text.length);
        for (const segment of segments) expect(segment.end - segment.start).toBeLessThanOrEqual(2001 + 3000);
      }),
    );
  });
});

describe('reduceText', () => {
  it('fits the limit for every limit, and keeps the relevant line when it fits', { timeout: 120_000 }, async () => {
    const text = Array.from({ length: 3000 }, (_, index) => (index === 1777 ? 'الخطأ: انقطع الاتصال بقاعدة البيانات' : `سطر ${index}: تمت المعالجة بنجاح`)).join('\n');
    const counter = tokenCounter('o200k_base');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3000 }), async (limit) => {
        const reduced = await reduceText(text, limit, counter, 'لماذا انقطع الاتصال بقاعدة البيانات؟');
        expect(counter(reduced)).toBeLessThanOrEqual(limit);
        if (limit >= 60) expect(reduced).toContain('انقطع الاتصال');
      }),
      { numRuns: 30 },
    );
  });
});

describe('reduceJson', () => {
  it('returns JSON that fits and parses, for any JSON value and limit', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 400 }), (value, limit) => {
        const reduced = reduceJson(value, limit, charCounter, 'question');
        if (reduced === undefined) {
          expect(limit).toBeLessThan(60);
          return;
        }
        expect(charCounter(reduced.text)).toBeLessThanOrEqual(limit);
        expect(JSON.parse(reduced.text)).toEqual(JSON.parse(JSON.stringify(reduced.value)));
      }),
      { numRuns: 300 },
    );
  });
});
