import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeText } from '@zerda/text';
import { contentHash, contentKey } from './chunk-filter.js';
import { sha256Hex } from './sha256.js';

const nodeSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
/** Any sequence of UTF-16 code units: lone high and low surrogates, reversed pairs, BOMs, NULs. */
const codeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }).map((units) => String.fromCharCode(...units));
const surrogateHeavy = fc
  .array(fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.constantFrom(0x61, 0x627, 0x20, 0xfeff)), { maxLength: 64 })
  .map((units) => String.fromCharCode(...units));

describe('sha256Hex', () => {
  it('matches the published test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // Two blocks (56 bytes of message: the padding spills into a second block).
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('gives the digest node:crypto gives, for any Unicode text including lone surrogates', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), codeUnits, surrogateHeavy), (text) => {
      expect(sha256Hex(text)).toBe(nodeSha256(text));
    }), { numRuns: 2000 });
  });

  it('matches node:crypto on Arabic, English and texts across block boundaries', () => {
    for (const text of ['الذَّكاء الاصطناعي ، ؛ ؟ ـــ', 'Retrieval-augmented generation', 'x'.repeat(55), 'x'.repeat(64), 'ب'.repeat(1000), '\ud83d', '\ude00\ud83d']) {
      expect(sha256Hex(text)).toBe(nodeSha256(text));
    }
  });

  it('keeps contentHash equal to the node:crypto digest of the content key', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 120 }), codeUnits), (text) => {
      expect(contentHash(text)).toBe(nodeSha256(contentKey(text)));
    }), { numRuns: 500 });
  });
});

describe('contentKey', () => {
  it('is normalizeText with every whitespace run collapsed to one space, trimmed (English, Arabic, every kind of space)', () => {
    const pieces = [' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u200b', 'a', 'B', 'مدينة', 'أحمد', 'ـ', 'ُ', '،', '؟', '.', 'x y', ' z '];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40, size: 'max' }), (parts) => {
        const text = parts.join('');
        expect(contentKey(text)).toBe(normalizeText(text).replace(/\s+/gu, ' ').trim());
      }),
      { numRuns: 3000 },
    );
  });
});
