import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ZerdaError, type ScoredChunk } from '@zerda/types';
import { fnv1a, normalizeText, words } from '@zerda/text';
import { ChunkFilter, contentHash, noiseReason } from './chunk-filter.js';
import { jaccard, mayReachJaccard, shingleHashes, shingleSet, sortedJaccard, textShingleHashes } from './minhash.js';
import { ARABIC_PARAGRAPH, ENGLISH_PARAGRAPH, scored } from './__fixtures__/chunks.js';

const filter = new ChunkFilter();
const ids = (list: ScoredChunk[]) => list.map((item) => item.chunk.id);

describe('ChunkFilter: exact duplicates', () => {
  it('drops copies that differ only in case and whitespace, keeping the best-scored copy', () => {
    const outcome = filter.filter([
      scored('a', ENGLISH_PARAGRAPH, 0.4),
      scored('b', ENGLISH_PARAGRAPH.toUpperCase().replace(/ /g, '   \n'), 0.9),
      scored('c', ARABIC_PARAGRAPH, 0.5),
    ]);
    expect(ids(outcome.kept)).toEqual(['b', 'c']);
    expect(outcome.dropped).toEqual([expect.objectContaining({ chunkId: 'a', reason: 'exact_duplicate', duplicateOf: 'b' })]);
  });

  it('treats Arabic spellings that differ in harakat, tatweel and alef/yeh variants as the same text', () => {
    const plain = 'التعلم الالي هو فرع من الذكاء الاصطناعي يهتم ببناء انظمة تتعلم من البيانات علي مر الزمن';
    const decorated = 'التَّعَلُّــمُ الآلِيُّ هو فرعٌ من الذّكاء الاصطناعي يهتم ببناء أنظمة تتعلم من البيانات على مرّ الزمن';
    expect(contentHash(plain)).toBe(contentHash(decorated));
    const outcome = filter.filter([scored('plain', plain, 0.7), scored('decorated', decorated, 0.7)]);
    // Equal scores: the earlier candidate (the retriever's order) stays.
    expect(ids(outcome.kept)).toEqual(['plain']);
    expect(outcome.dropped[0]).toMatchObject({ chunkId: 'decorated', reason: 'exact_duplicate', duplicateOf: 'plain' });
  });

  it('can be switched off', () => {
    const off = new ChunkFilter({ exactDuplicates: false, nearDuplicates: { enabled: false } });
    expect(off.filter([scored('a', ENGLISH_PARAGRAPH), scored('b', ENGLISH_PARAGRAPH)]).kept).toHaveLength(2);
  });
});

describe('ChunkFilter: near duplicates', () => {
  const base =
    'The keyword index stores a posting list for every analysed term. Each posting records the chunk and the term frequency, and the index keeps document lengths for BM25 normalisation across the whole corpus.';
  const edited = base.replace('whole corpus', 'entire corpus');
  const different =
    'Vector stores keep embeddings in pages of Float32Array and answer nearest-neighbour queries by exact cosine similarity, with optional metadata filters applied before scoring.';

  it('drops a lightly edited copy (English) and says which chunk it duplicates', () => {
    const outcome = filter.filter([scored('original', base, 0.8), scored('edited', edited, 0.6), scored('other', different, 0.5)]);
    expect(ids(outcome.kept)).toEqual(['original', 'other']);
    expect(outcome.dropped).toHaveLength(1);
    expect(outcome.dropped[0]).toMatchObject({ chunkId: 'edited', reason: 'near_duplicate', duplicateOf: 'original' });
    expect(outcome.dropped[0]?.detail).toMatch(/Jaccard 0\.\d+ >= 0.8/);
  });

  it('keeps the better-scored of two near duplicates even when it comes later', () => {
    const outcome = filter.filter([scored('edited', edited, 0.2), scored('original', base, 0.9)]);
    expect(ids(outcome.kept)).toEqual(['original']);
  });

  it('detects Arabic near duplicates', () => {
    const arabic =
      'تخزن الفهارس النصية قائمة لكل مصطلح بعد التحليل، وتسجل كل قائمة المقطع وتكرار المصطلح فيه، ويحتفظ الفهرس بأطوال المستندات لتطبيع درجات BM25 عبر المجموعة كلها دون استثناء.';
    const arabicEdited = arabic.replace('دون استثناء', 'بلا استثناء');
    const outcome = filter.filter([scored('ar1', arabic, 0.5), scored('ar2', arabicEdited, 0.4), scored('ar3', ARABIC_PARAGRAPH, 0.3)]);
    expect(ids(outcome.kept)).toEqual(['ar1', 'ar3']);
    expect(outcome.dropped[0]).toMatchObject({ chunkId: 'ar2', reason: 'near_duplicate', duplicateOf: 'ar1' });
  });

  it('honours the threshold: a strict threshold keeps the edited copy', () => {
    const strict = new ChunkFilter({ nearDuplicates: { threshold: 0.99 } });
    expect(strict.filter([scored('original', base), scored('edited', edited)]).kept).toHaveLength(2);
  });

  it('is deterministic across instances and never compares a chunk with a dropped one', () => {
    const chunks = [scored('x', base, 0.9), scored('y', edited, 0.5), scored('z', different, 0.1)];
    expect(new ChunkFilter().filter(chunks)).toEqual(new ChunkFilter().filter(chunks));
  });
});

describe('ChunkFilter: noise and bounds', () => {
  it('drops link lists, number tables, punctuation and repeated characters', () => {
    const outcome = filter.filter([
      scored('urls', 'https://example.com/a/b/c https://example.org/x?y=1 www.example.net/path/to/page'),
      scored('numbers', '12 34 56 78 90 12 34 56 78 90 12 34 56 78 90 12.5 33.3'),
      scored('arabic-digits', '١٢ ٣٤ ٥٦ ٧٨ ٩٠ ١٢ ٣٤ ٥٦ ٧٨ ٩٠ ١٢ ٣٤ ٥٦'),
      scored('punctuation', '---- **** ==== #### ---- **** ==== ####'),
      scored('repeated', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'),
      scored('laughing', 'هههههههههههههههههههههههههههههههه'),
      scored('prose', ENGLISH_PARAGRAPH),
      scored('arabic-prose', ARABIC_PARAGRAPH),
    ]);
    expect(ids(outcome.kept)).toEqual(['prose', 'arabic-prose']);
    const reasons = Object.fromEntries(outcome.dropped.map((drop) => [drop.chunkId, drop.detail ?? '']));
    expect(reasons.urls).toMatch(/URLs/);
    expect(reasons.numbers).toMatch(/letter ratio/);
    expect(reasons['arabic-digits']).toMatch(/letter ratio/);
    expect(reasons.punctuation).toMatch(/letter ratio/);
    expect(reasons.repeated).toMatch(/repeated/);
    expect(reasons.laughing).toMatch(/repeated/);
    expect(outcome.dropped.every((drop) => drop.reason === 'noise')).toBe(true);
  });

  it('counts harakat as letter content, so vocalised Arabic is not noise', () => {
    expect(noiseReason('بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ', 0.4)).toBeUndefined();
  });

  it('keeps prose that mentions a URL', () => {
    expect(noiseReason(`${ENGLISH_PARAGRAPH} See https://example.com/docs for details.`, 0.4)).toBeUndefined();
  });

  it('applies length bounds in code points and the optional minimum score', () => {
    const bounded = new ChunkFilter({ minLength: 10, maxLength: 60, minScore: 0.3 });
    const outcome = bounded.filter([
      scored('short', 'too short'),
      scored('emoji', '😀😀😀 fine now 😀'),
      scored('long', ENGLISH_PARAGRAPH),
      scored('weak', 'A perfectly fine sentence here.', 0.1),
      scored('good', 'A perfectly fine sentence there.', 0.5),
    ]);
    expect(ids(outcome.kept)).toEqual(['emoji', 'good']);
    expect(outcome.dropped.map((drop) => [drop.chunkId, drop.reason])).toEqual([
      ['short', 'too_short'],
      ['long', 'too_long'],
      ['weak', 'low_score'],
    ]);
  });

  it('keeps kept chunks in input order and by identity', () => {
    const input = [scored('b', ARABIC_PARAGRAPH, 0.1), scored('a', ENGLISH_PARAGRAPH, 0.9)];
    const outcome = filter.filter(input);
    expect(outcome.kept[0]).toBe(input[0]);
    expect(outcome.kept[1]).toBe(input[1]);
  });
});

describe('ChunkFilter: bad input', () => {
  it('names the offending chunk for a NaN score', () => {
    const chunks = [scored('a', ENGLISH_PARAGRAPH), { ...scored('b', ARABIC_PARAGRAPH), score: Number.NaN }];
    expect(() => filter.filter(chunks)).toThrow(/chunks\[1\]\.score must be a finite number, got number NaN/);
  });

  it('rejects wrong types and unknown config keys', () => {
    expect(() => filter.filter('nope' as never)).toThrow(ZerdaError);
    expect(() => filter.filter([{ chunk: { id: 'x', docId: 'x', text: 5 }, score: 1, scores: {} }] as never)).toThrow(/chunks\[0\]\.chunk\.text must be a string/);
    expect(() => new ChunkFilter({ nearDuplicate: {} } as never)).toThrow(/config.filter.nearDuplicate/);
    expect(() => new ChunkFilter({ minLetterRatio: 2 })).toThrow(/config.filter.minLetterRatio/);
  });

  it('handles an empty list and arbitrary Unicode', () => {
    expect(filter.filter([])).toEqual({ kept: [], dropped: [] });
    const weird = ['', '\ud800\udc00\ud800', '\u200f\u200e\u200d', 'ـــــــــــــــــــــــ', '😀'.repeat(40)];
    const outcome = filter.filter(weird.map((text, i) => scored(`w${i}`, text)));
    expect(outcome.kept.length + outcome.dropped.length).toBe(weird.length);
  });
});

describe('ChunkFilter: properties', () => {
  const vocabulary = ['the', 'index', 'stores', 'terms', 'الفهرس', 'يخزن', 'المصطلحات', 'BM25', 'vector', 'cosine', 'بحث', 'نص', 'data', 'chunk'];
  const sentence = fc.array(fc.constantFrom(...vocabulary), { minLength: 0, maxLength: 30 }).map((list) => list.join(' '));
  const candidate = fc.record({
    text: fc.oneof(sentence, fc.string({ maxLength: 60 })),
    score: fc.double({ min: -5, max: 5, noNaN: true }),
  });

  it('is idempotent: filtering the kept chunks again keeps all of them', () => {
    const configured = new ChunkFilter({ minLength: 5, nearDuplicates: { threshold: 0.6, permutations: 64 } });
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 40 }), (items) => {
        const chunks = items.map((item, i) => scored(`c${i}`, item.text, item.score));
        const first = configured.filter(chunks);
        const second = configured.filter(first.kept);
        expect(ids(second.kept)).toEqual(ids(first.kept));
        expect(second.dropped).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('compares every pair exactly when there are at most 2 × permutations candidates (no LSH miss)', () => {
    // Brute-force reference: best first, exact shingle Jaccard against every kept candidate.
    const reference = (chunks: ScoredChunk[], threshold: number): string[] => {
      const order = chunks.map((item, index) => ({ item, index })).sort((a, b) => b.item.score - a.item.score || a.index - b.index);
      const kept: Set<number>[] = [];
      const dropped: string[] = [];
      for (const { item } of order) {
        const set = shingleSet(words(normalizeText(item.chunk.text)), 3);
        if (set.size === 0) continue;
        if (kept.some((other) => jaccard(set, other) >= threshold)) dropped.push(item.chunk.id);
        else kept.push(set);
      }
      return dropped.sort();
    };
    const exhaustive = new ChunkFilter({ minLength: 0, noise: false, exactDuplicates: false, nearDuplicates: { threshold: 0.5, permutations: 32 } });
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 64 }), (items) => {
        const chunks = items.map((item, i) => scored(`c${i}`, item.text, item.score));
        const found = exhaustive.filter(chunks).dropped.filter((drop) => drop.reason === 'near_duplicate').map((drop) => drop.chunkId);
        expect(found.sort()).toEqual(reference(chunks, 0.5));
      }),
      { numRuns: 150 },
    );
  });

  it('noiseReason (one pass over code points) agrees with its regex definition on arbitrary text', () => {
    // The definition: visible = non-\\s code points; letters = \\p{L} or \\p{M}; URLs; a majority code point.
    const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"'،؛]+/giu;
    const codePoints = (text: string) => [...text].length;
    const definition = (text: string, minLetterRatio: number): string | undefined => {
      // Code points of the text as written (whitespace removed after splitting, so two lone
      // surrogates around a space stay two characters rather than pairing up).
      const visible = [...text].filter((character) => !/^\s$/u.test(character));
      if (visible.length === 0) return 'no visible characters';
      const total = visible.length;
      let urlLength = 0;
      for (const match of text.matchAll(URL_PATTERN)) urlLength += codePoints(match[0]);
      if (urlLength / total > 0.5) return `mostly URLs (${Math.round((urlLength / total) * 100)}% of characters)`;
      const ratio = visible.filter((character) => /^[\p{L}\p{M}]$/u.test(character)).length / total;
      if (ratio < minLetterRatio) return `letter ratio ${ratio.toFixed(2)} < ${minLetterRatio} (mostly digits, symbols or punctuation)`;
      if (total >= 8) {
        const counts = new Map<string, number>();
        for (const character of visible) counts.set(character, (counts.get(character) ?? 0) + 1);
        const top = Math.max(...counts.values());
        if (top * 2 > total && top / total > 0.5) return `one character repeated (${Math.round((top / total) * 100)}% of characters)`;
      }
      return undefined;
    };
    const pieces = fc.constantFrom('ههههههههه', '=====', '١٢٣٤', '2024', ' ', '\u00a0', '\u3000', '\n', 'ـــ', 'بِسْمِ', 'الرَّحْمَٰنِ', '،؛؟', 'https://example.com/a', 'WWW.Example.org', 'word', '😀😀😀', '\ud800', '\udc00', 'é', '𝒳');
    const text = fc.oneof(fc.string({ maxLength: 80, unit: 'binary' }), fc.array(pieces, { maxLength: 30 }).map((list) => list.join('')));
    fc.assert(
      fc.property(text, fc.constantFrom(0, 0.4, 0.5, 0.9), (input, ratio) => {
        expect(noiseReason(input, ratio)).toBe(definition(input, ratio));
      }),
      { numRuns: 1500 },
    );
  });

  it('sortedJaccard over shingle hashes equals Jaccard over shingle sets (English, Arabic, mixed)', () => {
    fc.assert(
      fc.property(sentence, sentence, fc.integer({ min: 1, max: 4 }), (left, right, size) => {
        const a = shingleHashes(words(left), size);
        const b = shingleHashes(words(right), size);
        for (let i = 1; i < a.length; i++) expect(a[i - 1]!).toBeLessThan(a[i]!);
        expect(sortedJaccard(a, b)).toBeCloseTo(jaccard(shingleSet(words(left), size), shingleSet(words(right), size)), 12);
      }),
      { numRuns: 300 },
    );
  });

  it('textShingleHashes(text) equals shingleHashes(words(text)) (English, Arabic, mixed, any string)', () => {
    const any = fc.oneof(sentence, fc.string({ maxLength: 120, unit: 'binary' }), fc.string({ maxLength: 60, unit: 'grapheme' }));
    fc.assert(
      fc.property(any, fc.integer({ min: 1, max: 5 }), (text, size) => {
        expect([...textShingleHashes(text, size)]).toEqual([...shingleHashes(words(text), size)]);
      }),
      { numRuns: 1000 },
    );
    expect([...textShingleHashes(normalizeText('الرَّحْمَٰنِ الرَّحِيمِ، مرحبا بـــالعالم؟ hello 2024م'), 2)]).toEqual([...shingleHashes(words(normalizeText('الرَّحْمَٰنِ الرَّحِيمِ، مرحبا بـــالعالم؟ hello 2024م')), 2)]);
    expect(() => textShingleHashes('a b', 0)).toThrow(ZerdaError);
  });

  it('the prefix filter never rules out a pair that reaches the threshold, and rules out most that do not', () => {
    const sortedSet = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 }).map((list) => Uint32Array.from(list.sort((x, y) => x - y)));
    let ruledOut = 0;
    let below = 0;
    fc.assert(
      fc.property(sortedSet, sortedSet, fc.constantFrom(0, 0.3, 0.5, 0.8, 0.9, 1), (a, b, threshold) => {
        const similarity = sortedJaccard(a, b);
        const may = mayReachJaccard(a, b, threshold);
        if (similarity >= threshold) expect(may).toBe(true);
        else {
          below++;
          if (!may) ruledOut++;
        }
      }),
      { numRuns: 3000 },
    );
    expect(ruledOut).toBeGreaterThan(below / 3);
  });

  it('the shingle helpers name bad input', () => {
    expect(() => shingleHashes('a b c' as never, 3)).toThrow(/wordList/);
    expect(() => shingleHashes(['a'], 0)).toThrow(/size/);
    expect(() => sortedJaccard([1, 2] as never, new Uint32Array(0))).toThrow(/\ba\b/);
    expect(() => mayReachJaccard(new Uint32Array(0), new Uint32Array(0), Number.NaN)).toThrow(/threshold/);
  });

  it('accounts for every candidate exactly once', () => {
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 40 }), (items) => {
        const chunks = items.map((item, i) => scored(`c${i}`, item.text, item.score));
        const outcome = filter.filter(chunks);
        const all = [...ids(outcome.kept), ...outcome.dropped.map((drop) => drop.chunkId)].sort();
        expect(all).toEqual(ids(chunks).sort());
        for (const drop of outcome.dropped) if (drop.duplicateOf) expect(ids(outcome.kept)).toContain(drop.duplicateOf);
      }),
      { numRuns: 100 },
    );
  });
});

describe('ChunkFilter: memoised text features', () => {
  it('a long-lived filter decides every call exactly as a fresh one (property)', () => {
    const texts = [ENGLISH_PARAGRAPH, ARABIC_PARAGRAPH, `${ENGLISH_PARAGRAPH} Extra words.`, ENGLISH_PARAGRAPH.toUpperCase(), '12 34 56 78 90 12 34 56 78 90', 'short', `${ARABIC_PARAGRAPH} والمزيد`, 'Another passage about cooking pasta at home with friends.'];
    const shared = new ChunkFilter();
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(fc.constantFrom(...texts), fc.double({ min: 0, max: 5, noNaN: true })), { maxLength: 10 }), { minLength: 1, maxLength: 5 }), (calls) => {
        for (const call of calls) {
          const candidates = call.map(([text, score], index) => scored(`c${index}`, text, score));
          expect(shared.filter(candidates)).toEqual(new ChunkFilter().filter(candidates));
        }
      }),
    );
  });

  it('two different texts whose content keys share a hash are both kept', () => {
    // Find two 24-letter texts with the same FNV-1a (a birthday search over a few ten thousand).
    let state = 7;
    const letter = () => String.fromCharCode(97 + ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 26));
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    while (!pair) {
      const text = Array.from({ length: 24 }, letter).join('');
      const hash = fnv1a(text);
      const other = seen.get(hash);
      if (other !== undefined && other !== text) pair = [other, text];
      else seen.set(hash, text);
    }
    const filter = new ChunkFilter({ nearDuplicates: { enabled: false } });
    const { kept } = filter.filter([scored('a', pair[0]), scored('b', pair[1]), scored('c', pair[0].toUpperCase())]);
    expect(kept.map((item) => item.chunk.id)).toEqual(['a', 'b']);
  });
});
