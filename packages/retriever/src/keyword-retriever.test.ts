import fc from 'fast-check';
import { Analyzer, fnv1a } from '@zerda/text';
import { createError, InMemorySnapshot, ZerdaError, type DocumentChunkInput, type DocumentChunk, type SnapshotCheck } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { KeywordRetriever, type KeywordRetrieverJSON, type KeywordRetrieverOptions } from './keyword-retriever.js';

const english: DocumentChunkInput[] = [
  { id: 'a', docId: 'd1', text: 'The cat sat on the mat. Cats like warm mats.', title: 'Cats', metadata: { lang: 'en', year: 2020 } },
  { id: 'b', docId: 'd1', text: 'Dogs chase cats in the garden.', title: 'Cats', metadata: { lang: 'en', year: 2021 } },
  { id: 'c', docId: 'd2', text: 'Quantum computing uses qubits and superposition.', title: 'Physics', metadata: { lang: 'en', year: 2019 } },
  { id: 'd', docId: 'd3', text: 'A garden of roses and tulips blooms in spring.', title: 'Gardening', metadata: { lang: 'en', year: 2022 }, source: 'blog' },
];

const arabic: DocumentChunkInput[] = [
  { id: 'ar1', docId: 'ar', text: 'المكتبة الوطنية تضم آلاف الكتب والمخطوطات القديمة.', title: 'مكتبة', metadata: { lang: 'ar' } },
  { id: 'ar2', docId: 'ar', text: 'يدرس الطلاب في الجامعة علوم الحاسوب والرياضيات.', title: 'جامعة', metadata: { lang: 'ar' } },
  { id: 'ar3', docId: 'ar-mixed', text: 'تعلم البرمجة بلغة Python في مدرسة إلكترونية مجانية.', metadata: { lang: 'mixed' } },
  { id: 'ar4', docId: 'ar-hamza', text: 'أكل الولد التفاحة على الطاولة', metadata: { lang: 'ar' } },
];

/** Okapi BM25 computed naively from the analyzer's terms (a reference independent of the index). */
function referenceBm25(chunks: DocumentChunkInput[], query: string, options: { k1: number; b: number; titleWeight: number }, analyzer = new Analyzer()): Map<string, number> {
  const documents = chunks.map((chunk) => {
    const text = analyzer.analyze(chunk.text);
    const title = options.titleWeight > 0 && chunk.title ? analyzer.analyze(chunk.title) : [];
    const tf = new Map<string, number>();
    for (const term of text) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const term of title) tf.set(term, (tf.get(term) ?? 0) + options.titleWeight);
    return { id: chunk.id!, tf, length: text.length + options.titleWeight * title.length };
  });
  const average = documents.reduce((sum, document) => sum + document.length, 0) / documents.length;
  const scores = new Map<string, number>();
  const queryTerms = analyzer.analyze(query);
  for (const document of documents) {
    let score = 0;
    for (const term of queryTerms) {
      const df = documents.filter((other) => other.tf.has(term)).length;
      const tf = document.tf.get(term) ?? 0;
      if (df === 0 || tf === 0) continue;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (options.k1 + 1)) / (tf + options.k1 * (1 - options.b + (options.b * document.length) / average));
    }
    if (score > 0) scores.set(document.id, score);
  }
  return scores;
}

function expectZerdaError(run: () => unknown, field: string): void {
  try {
    run();
  } catch (error) {
    expect(ZerdaError.isInstance(error)).toBe(true);
    expect((error as ZerdaError).message).toContain(field);
    return;
  }
  throw new Error(`expected a ZerdaError naming ${field}`);
}

async function expectRejects(promise: Promise<unknown>, field: string, code?: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(ZerdaError.isInstance(error), `expected a ZerdaError naming ${field}`).toBe(true);
  expect((error as ZerdaError).message).toContain(field);
  if (code) expect((error as ZerdaError).code).toBe(code);
}

async function build(chunks: DocumentChunkInput[], options: ConstructorParameters<typeof KeywordRetriever>[0] = {}): Promise<KeywordRetriever> {
  const retriever = new KeywordRetriever(options);
  await retriever.index(chunks as DocumentChunk[]);
  return retriever;
}

describe('KeywordRetriever: BM25 scoring', () => {
  it('scores exactly like a naive Okapi BM25 over the same terms', async () => {
    for (const parameters of [
      { k1: 0.9, b: 0.4, titleWeight: 1 },
      { k1: 1.2, b: 0.75, titleWeight: 2.5 },
      { k1: 0, b: 0, titleWeight: 0 },
    ]) {
      const retriever = await build(english, parameters);
      for (const query of ['cats in the garden', 'garden garden roses', 'qubits', 'warm mat cats dogs']) {
        const expected = referenceBm25(english, query, parameters);
        const results = await retriever.retrieve(query, { topK: 10 });
        expect(results.map((result) => result.chunk.id).sort()).toEqual([...expected.keys()].sort());
        for (const result of results) expect(result.score).toBeCloseTo(expected.get(result.chunk.id)!, 10);
      }
    }
  });

  it('returns results best first with score = scores.keyword and its name', async () => {
    const retriever = await build(english);
    const results = await retriever.retrieve('cats garden');
    expect(results.length).toBeGreaterThan(1);
    for (let index = 1; index < results.length; index++) expect(results[index - 1]!.score).toBeGreaterThanOrEqual(results[index]!.score);
    for (const result of results) {
      expect(result.scores.keyword).toBe(result.score);
      expect(result.score).toBeGreaterThan(0);
      expect(result.retrievers).toEqual(['keyword']);
    }
    expect(results[0]!.chunk.id).toBe('b'); // the only chunk with both terms
  });

  it('stems English so inflections match', async () => {
    const retriever = await build(english);
    const results = await retriever.retrieve('blooming rose');
    expect(results[0]?.chunk.id).toBe('d');
  });

  it('honours topK', async () => {
    const retriever = await build(english);
    expect(await retriever.retrieve('cats garden', { topK: 1 })).toHaveLength(1);
    expect(await retriever.retrieve('cats garden', { topK: 0 })).toEqual([]);
  });

  it('returns [] for absent terms, empty, blank, punctuation-only and stopword-only queries', async () => {
    const retriever = await build([...english, ...arabic]);
    for (const query of ['zebra', '', '   ', '?!،؛', 'the of and', 'في من على', 'the في']) {
      expect(await retriever.retrieve(query)).toEqual([]);
    }
    expect(await new KeywordRetriever().retrieve('cats')).toEqual([]);
  });

  it('never produces NaN, even when every chunk is empty or stopwords only', async () => {
    const retriever = await build([
      { docId: 'x', text: '' },
      { docId: 'y', text: 'the and of' },
    ]);
    expect(await retriever.retrieve('the')).toEqual([]);
    await retriever.add([{ docId: 'z', text: 'meaningful words' }] as DocumentChunk[]);
    const results = await retriever.retrieve('meaningful');
    expect(results).toHaveLength(1);
    expect(Number.isFinite(results[0]!.score)).toBe(true);
  });

  it('counts repeated query terms repeatedly', async () => {
    const retriever = await build(english);
    const once = await retriever.retrieve('qubits');
    const twice = await retriever.retrieve('qubits qubits');
    expect(twice[0]!.score).toBeCloseTo(2 * once[0]!.score, 12);
  });

  it('uses the title with its weight, and ignores it at weight 0', async () => {
    const chunks: DocumentChunkInput[] = [
      { id: 'titled', docId: 't', text: 'An introduction to the topic.', title: 'Photosynthesis' },
      { id: 'body', docId: 'u', text: 'Photosynthesis converts light. The process is long and has many interesting steps and phases.' },
    ];
    const heavy = await build(chunks, { titleWeight: 5 });
    expect((await heavy.retrieve('photosynthesis'))[0]!.chunk.id).toBe('titled');
    const none = await build(chunks, { titleWeight: 0 });
    expect((await none.retrieve('photosynthesis')).map((result) => result.chunk.id)).toEqual(['body']);
  });

  it('b = 0 ignores length; b = 1 favours short chunks', async () => {
    const chunks: DocumentChunkInput[] = [
      { id: 'long', docId: 'l', text: 'apple banana cherry date elderberry fig grape honeydew' },
      { id: 'short', docId: 's', text: 'apple pie' },
    ];
    const flat = await build(chunks, { b: 0 });
    const [first, second] = await flat.retrieve('apple');
    expect(first!.score).toBe(second!.score);
    expect(first!.chunk.id).toBe('long'); // tie → insertion order
    const normalised = await build(chunks, { b: 1 });
    expect((await normalised.retrieve('apple'))[0]!.chunk.id).toBe('short');
  });

  it('breaks ties by insertion order, also after an update keeps a chunk in place', async () => {
    const same = 'identical text about lanterns';
    const retriever = await build([
      { id: 'first', docId: 'a', text: same },
      { id: 'second', docId: 'b', text: same },
      { id: 'third', docId: 'c', text: same },
    ]);
    expect((await retriever.retrieve('lanterns')).map((result) => result.chunk.id)).toEqual(['first', 'second', 'third']);
    await retriever.add([{ id: 'first', docId: 'a', text: same, metadata: { updated: true } }] as unknown as DocumentChunk[]);
    const results = await retriever.retrieve('lanterns');
    expect(results.map((result) => result.chunk.id)).toEqual(['first', 'second', 'third']);
    expect(results[0]!.chunk.metadata).toEqual({ updated: true });
  });
});

describe('KeywordRetriever: Arabic and mixed text', () => {
  it('matches across diacritics, tatweel, alef variants, ى/ي and Arabic punctuation', async () => {
    const retriever = await build(arabic);
    expect((await retriever.retrieve('المَكْتَبَةُ'))[0]?.chunk.id).toBe('ar1'); // harakat
    expect((await retriever.retrieve('المكـــتبة'))[0]?.chunk.id).toBe('ar1'); // tatweel
    expect((await retriever.retrieve('اكل'))[0]?.chunk.id).toBe('ar4'); // أ → ا
    expect((await retriever.retrieve('علي الطاولة'))[0]?.chunk.id).toBe('ar4'); // ى/ي
    expect((await retriever.retrieve('الجامعة؟'))[0]?.chunk.id).toBe('ar2'); // Arabic question mark
    expect((await retriever.retrieve('الكتب، المخطوطات؛'))[0]?.chunk.id).toBe('ar1');
  });

  it('stems Arabic prefixes and suffixes (light stemmer)', async () => {
    const retriever = await build(arabic);
    // والكتب / بالمكتبة share stems with الكتب / المكتبة
    expect((await retriever.retrieve('والكتب'))[0]?.chunk.id).toBe('ar1');
    expect((await retriever.retrieve('بالمكتبة'))[0]?.chunk.id).toBe('ar1');
  });

  it('answers mixed Arabic/English queries from mixed and single-language chunks', async () => {
    const retriever = await build([...english, ...arabic]);
    const mixed = await retriever.retrieve('البرمجة Python');
    expect(mixed[0]?.chunk.id).toBe('ar3');
    const both = (await retriever.retrieve('garden الجامعة', { topK: 10 })).map((result) => result.chunk.id);
    expect(both).toContain('ar2');
    expect(both).toContain('d');
  });

  it('applies Arabic analyzer options (ة→ه folding) to index and query alike', async () => {
    const chunks: DocumentChunkInput[] = [{ id: 'x', docId: 'x', text: 'مدرسه' }];
    const folded = await build(chunks, { analyzer: { arabic: { tehMarbuta: true, stemmer: 'none' } } });
    expect(await folded.retrieve('مدرسة')).toHaveLength(1);
    const strict = await build(chunks, { analyzer: { arabic: { tehMarbuta: false, stemmer: 'none' } } });
    expect(await strict.retrieve('مدرسة')).toEqual([]);
  });
});

describe('KeywordRetriever: filters', () => {
  it('returns only chunks that pass the filter (metadata, docId, source)', async () => {
    const retriever = await build([...english, ...arabic]);
    const byYear = await retriever.retrieve('cats garden', { filter: { year: { $gte: 2021 } } });
    expect(byYear.map((result) => result.chunk.id).sort()).toEqual(['b', 'd']);
    expect((await retriever.retrieve('cats garden', { filter: { docId: 'd1' } })).every((result) => result.chunk.docId === 'd1')).toBe(true);
    expect((await retriever.retrieve('garden', { filter: { source: 'blog' } })).map((result) => result.chunk.id)).toEqual(['d']);
    expect(await retriever.retrieve('cats', { filter: { lang: 'ar' } })).toEqual([]);
    expect((await retriever.retrieve('الكتب', { filter: { $or: [{ lang: 'ar' }, { lang: 'mixed' }] } }))[0]?.chunk.id).toBe('ar1');
  });

  it('fills topK from matching chunks even when better ones fail the filter', async () => {
    const chunks: DocumentChunkInput[] = Array.from({ length: 50 }, (_, index) => ({
      id: `c${index}`,
      docId: `d${index}`,
      text: `river ${'river '.repeat(index % 5)}bank`,
      metadata: { even: index % 2 === 0 },
    }));
    const retriever = await build(chunks);
    const results = await retriever.retrieve('river', { topK: 20, filter: { even: false } });
    expect(results).toHaveLength(20);
    expect(results.every((result) => result.chunk.metadata.even === false)).toBe(true);
  });

  it('rejects an invalid filter naming the path', async () => {
    const retriever = await build(english);
    await expectRejects(retriever.retrieve('cats', { filter: { year: { $near: 3 } } as never }), 'options.filter.year.$near', 'ZERDA_INVALID_FILTER');
  });

  it('rejects an unknown option naming it, the known ones and the value given', async () => {
    const retriever = await build(english);
    await expect(retriever.retrieve('cats', { k: 10 } as never)).rejects.toThrow('options.k must be a known option (one of topK, filter, analysis, signal), got number 10');
  });
});

describe('KeywordRetriever: writes', () => {
  it('index() replaces the corpus', async () => {
    const retriever = await build(english);
    await retriever.index(arabic as DocumentChunk[]);
    expect(retriever.size()).toBe(arabic.length);
    expect(await retriever.retrieve('cats')).toEqual([]);
  });

  it('add() updates by id and remove() drops every chunk of a document', async () => {
    const retriever = await build(english);
    await retriever.add([{ id: 'c', docId: 'd2', text: 'Classical mechanics and gravity.' }] as DocumentChunk[]);
    expect(retriever.size()).toBe(4);
    expect(await retriever.retrieve('qubits')).toEqual([]);
    expect((await retriever.retrieve('gravity'))[0]?.chunk.id).toBe('c');
    await retriever.remove(['d1', 'unknown']);
    expect(retriever.size()).toBe(2);
    expect(await retriever.retrieve('cats')).toEqual([]);
  });

  it('remove() follows a chunk that moved to another document', async () => {
    const retriever = await build(english);
    await retriever.add([{ id: 'a', docId: 'moved', text: 'cats' }] as DocumentChunk[]);
    await retriever.remove(['d1']);
    expect(retriever.chunks().map((chunk) => chunk.id)).toEqual(['a', 'c', 'd']);
    await retriever.remove(['moved']);
    expect(retriever.chunks().map((chunk) => chunk.id)).toEqual(['c', 'd']);
  });

  it('removeChunks() removes by chunk id', async () => {
    const retriever = await build(english);
    await retriever.removeChunks(['a', 'nope']);
    expect(retriever.chunks().map((chunk) => chunk.id)).toEqual(['b', 'c', 'd']);
  });

  it('a failed write leaves the index as it was', async () => {
    const retriever = await build(english);
    const before = await retriever.retrieve('cats garden', { topK: 10 });
    await expectRejects(retriever.add([{ id: 'n', docId: 'n', text: 'new cats' }, { docId: 'bad', text: 42 }] as never), 'chunks[1].text');
    await expectRejects(retriever.index([{ id: 'x', docId: 'x', text: 'x' }, { id: 'x', docId: 'x', text: 'y' }] as never), 'chunks[1].id');
    expect(retriever.size()).toBe(4);
    expect(await retriever.retrieve('cats garden', { topK: 10 })).toEqual(before);
  });

  it('applies writes in call order even when not awaited', async () => {
    const retriever = new KeywordRetriever();
    const pending = [
      retriever.index(english as DocumentChunk[]),
      retriever.add([{ id: 'late', docId: 'late', text: 'lighthouse keeper' }] as DocumentChunk[]),
      retriever.remove(['d1']),
    ];
    await Promise.all(pending);
    expect(retriever.chunks().map((chunk) => chunk.id)).toEqual(['c', 'd', 'late']);
  });

  it('compacts automatically as the delta and tombstones grow, without changing results', async () => {
    const retriever = new KeywordRetriever();
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'omicron'];
    const all: DocumentChunkInput[] = [];
    let sawCompaction = false;
    for (let batch = 0; batch < 60; batch++) {
      const chunks = Array.from({ length: 20 }, (_, index) => {
        const n = batch * 20 + index;
        return { id: `c${n}`, docId: `d${n % 97}`, position: { index: n }, text: Array.from({ length: 12 }, (_, k) => `${words[(n * 7 + k * 3) % words.length]}${(n + k) % 13}`).join(' ') };
      });
      all.push(...chunks);
      await retriever.add(chunks as DocumentChunk[]);
      if (retriever.stats().deltaPostings === 0) sawCompaction = true;
    }
    expect(sawCompaction).toBe(true);
    await retriever.remove(Array.from({ length: 60 }, (_, index) => `d${index}`));
    const stats = retriever.stats();
    expect(stats.tombstones).toBe(0); // more than a quarter removed → compacted
    const rebuilt = await build(all.filter((chunk) => Number(chunk.docId.slice(1)) >= 60));
    for (const query of ['alpha3 beta4', 'kappa0', 'omicron12 zeta5 eta1']) {
      expect(await retriever.retrieve(query, { topK: 50 })).toEqual(await rebuilt.retrieve(query, { topK: 50 }));
    }
  });
});

describe('KeywordRetriever: serialization', () => {
  it('round-trips through JSON with exactly the same scores, options and chunks', async () => {
    const retriever = await build([...english, ...arabic], { k1: 1.1, b: 0.6, titleWeight: 1.5, name: 'bm25', analyzer: { arabic: { stemmer: 'snowball', tehMarbuta: true }, english: { stemmer: 'none' } } });
    await retriever.add([{ id: 'e', docId: 'e', text: 'cats and qubits', embedding: [0.5, 0.25] }] as DocumentChunk[]);
    await retriever.remove(['d3']);
    const text = JSON.stringify(retriever);
    const restored = KeywordRetriever.fromJSON(text);
    expect(restored.name).toBe('bm25');
    expect(restored.parameters).toEqual({ k1: 1.1, b: 0.6, titleWeight: 1.5 });
    expect((restored.analyzer as Analyzer).options).toEqual((retriever.analyzer as Analyzer).options);
    expect(restored.chunks()).toEqual(retriever.chunks().map((chunk) => (chunk.embedding ? { ...chunk, embedding: Array.from(chunk.embedding) } : chunk)));
    for (const query of ['cats', 'garden roses', 'المكتبة الكتب', 'Python البرمجة', 'qubits', 'nothing-here']) {
      expect(await restored.retrieve(query, { topK: 20 })).toEqual(await retriever.retrieve(query, { topK: 20 }));
    }
    // And it keeps working incrementally.
    await restored.add([{ id: 'f', docId: 'f', text: 'more cats' }] as DocumentChunk[]);
    expect(restored.size()).toBe(retriever.size() + 1);
  });

  it('needs the analyzer back when it was a custom one', async () => {
    const custom = { analyze: (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean) };
    const retriever = await build(english, { analyzer: custom });
    const json = retriever.toJSON();
    expect(json.analyzer).toBeNull();
    expect(() => KeywordRetriever.fromJSON(json)).toThrow(/json\.analyzer/);
    const restored = KeywordRetriever.fromJSON(json, { analyzer: custom });
    expect(await restored.retrieve('cats')).toEqual(await retriever.retrieve('cats'));
  });

  /** The JSON with a checksum recomputed over the (changed) content, to reach the checks behind it. */
  function withChecksum(value: Record<string, unknown>): Record<string, unknown> {
    const { checksum: _checksum, ...rest } = value;
    return { ...rest, checksum: `fnv1a32:${fnv1a(JSON.stringify(rest)).toString(16).padStart(8, '0')}` };
  }

  it('rejects corrupt data naming the field', async () => {
    const json = (await build(english)).toJSON() as unknown as Record<string, unknown> & KeywordRetrieverJSON;
    const cases: Array<[unknown, string]> = [
      ['{not json', 'json'],
      [{ ...json, format: 'other' }, 'json.format'],
      [{ ...json, version: 3 }, 'json.version'],
      [withChecksum({ ...json, parameters: { ...json.parameters, k1: -1 } }), 'json.k1'],
      [withChecksum({ ...json, index: { ...json.index, offsets: '!!' } }), 'json.index.offsets'],
      [withChecksum({ ...json, index: { ...json.index, terms: json.index.terms.slice(1) } }), 'json.index'],
      [withChecksum({ ...json, index: { ...json.index, postingChunks: json.index.offsets } }), 'json.index'],
      [withChecksum({ ...json, index: { ...json.index, chunks: [{ docId: 5 }] } }), 'json.index.chunks'],
    ];
    for (const [value, field] of cases) {
      try {
        KeywordRetriever.fromJSON(value);
        throw new Error(`accepted corrupt ${field}`);
      } catch (error) {
        expect(ZerdaError.isInstance(error), String(error)).toBe(true);
        expect((error as ZerdaError).message).toContain(field);
      }
    }
  });

  it('refuses damaged JSON instead of loading it with other scores (issue 15, defect 9)', async () => {
    const retriever = await build([...english, ...arabic]);
    const text = JSON.stringify(retriever);
    const frequencies = (retriever.toJSON() as KeywordRetrieverJSON).index.postingFrequencies;
    // One base64 digit of a term frequency changed: still valid base64 and a consistent index, other scores.
    const digit = frequencies.search(/[B-Z]/);
    const damagedFrequencies = frequencies.slice(0, digit) + String.fromCharCode(frequencies.charCodeAt(digit) - 1) + frequencies.slice(digit + 1);
    const damaged = text.replace(frequencies, damagedFrequencies);
    expect(damaged).not.toBe(text);
    const { checksum: _checksum, ...unchecked } = JSON.parse(damaged) as Record<string, unknown>;
    // Without the checksum (format version 1) the damage goes through and changes scores…
    const legacy = KeywordRetriever.fromJSON({ ...unchecked, version: 1 });
    const scores = async (index: KeywordRetriever) => (await index.retrieve('cats garden المكتبة', { topK: 20 })).map((hit) => hit.score);
    expect(await scores(legacy)).not.toEqual(await scores(retriever));
    // …with it, it is refused.
    expect(() => KeywordRetriever.fromJSON(damaged)).toThrow(/json\.checksum .*changed or damaged/);
    expect(() => KeywordRetriever.fromJSON({ ...unchecked, version: 2 })).toThrow(/json\.checksum/);
    expect(await scores(KeywordRetriever.fromJSON(text))).toEqual(await scores(retriever));
  });

  it('writeSnapshot/readSnapshot restore the index and refuse other BM25 parameters or analyzer options', async () => {
    const retriever = await build([...english, ...arabic], { k1: 1.1, b: 0.6, titleWeight: 1.5, analyzer: { arabic: { stemmer: 'snowball' } } });
    await retriever.add([{ id: 'e', docId: 'e', text: 'cats and qubits', embedding: [0.5, 0.25] }] as DocumentChunk[]);
    await retriever.remove(['d3']);
    const snapshot = new InMemorySnapshot();
    await retriever.writeSnapshot(snapshot.writer('keyword'));
    const fail = (file: string, check: SnapshotCheck, reason: string) => createError('ZERDA_CORRUPT_SNAPSHOT', { file, check, reason });
    const open = async (options: KeywordRetrieverOptions) => {
      const opened = new KeywordRetriever(options);
      await opened.readSnapshot(snapshot.reader(fail, 'keyword'));
      return opened;
    };
    const opened = await open({ k1: 1.1, b: 0.6, titleWeight: 1.5, analyzer: { arabic: { stemmer: 'snowball' } } });
    expect(opened.chunks()).toEqual(retriever.chunks());
    for (const query of ['cats', 'garden roses', 'المكتبة الكتب', 'Python البرمجة', 'qubits']) {
      expect(await opened.retrieve(query, { topK: 20 })).toEqual(await retriever.retrieve(query, { topK: 20 }));
    }
    await expect(open({ k1: 1.2, b: 0.6, titleWeight: 1.5, analyzer: { arabic: { stemmer: 'snowball' } } })).rejects.toThrow(/retrieval\.bm25\.k1 must be 1\.1, the value the snapshot's keyword index was built with/);
    await expect(open({ k1: 1.1, b: 0.6, titleWeight: 1.5 })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'analyzer' } });
    // Nothing is replaced when a file is missing.
    snapshot.files.delete('keyword/index/chunk-offsets.u16');
    const kept = await build(english, { k1: 1.1, b: 0.6, titleWeight: 1.5, analyzer: { arabic: { stemmer: 'snowball' } } });
    await expect(kept.readSnapshot(snapshot.reader(fail, 'keyword'))).rejects.toMatchObject({ details: { file: 'keyword/index/chunk-offsets.u16', check: 'exists' } });
    expect(kept.size()).toBe(english.length);
  });
  it('a restored index takes later writes like the original: chunks of known terms only are indexed, scores stay identical', async () => {
    const words = ['cats', 'dogs', 'qubits', 'roses', 'المكتبة', 'الكتب', 'garden', 'python'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 30 }),
        fc.array(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 4 }),
        async (texts, added, removedDoc) => {
          const chunk = (id: string, words: string[]) => ({ id, docId: `d${id.length % 5}`, text: words.join(' ') });
          const original = await build(texts.map((words, index) => chunk(`c${index}`, words)));
          const snapshot = new InMemorySnapshot();
          await original.writeSnapshot(snapshot.writer('keyword'));
          const opened = new KeywordRetriever();
          await opened.readSnapshot(snapshot.reader((file, check, reason) => createError('ZERDA_CORRUPT_SNAPSHOT', { file, check, reason }), 'keyword'));
          const restored = [KeywordRetriever.fromJSON(JSON.parse(JSON.stringify(original.toJSON()))), opened];
          for (const retriever of [original, ...restored]) {
            await retriever.remove([`d${removedDoc}`]);
            await retriever.add(added.map((words, index) => chunk(`n${index}`, words)) as DocumentChunk[]);
          }
          for (const query of ['cats qubits', 'المكتبة garden', 'python']) {
            const expected = await original.retrieve(query, { topK: 50 });
            for (const retriever of restored) expect(await retriever.retrieve(query, { topK: 50 })).toEqual(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('KeywordRetriever: bad input', () => {
  it('rejects bad options naming the field', () => {
    expectZerdaError(() => new KeywordRetriever({ k1: -1 }), 'options.k1');
    expectZerdaError(() => new KeywordRetriever({ b: 1.5 }), 'options.b');
    expectZerdaError(() => new KeywordRetriever({ titleWeight: Number.NaN }), 'options.titleWeight');
    expectZerdaError(() => new KeywordRetriever({ analyzer: { arabic: { stemmer: 'porter' as never } } }), 'options.analyzer.arabic.stemmer');
    expectZerdaError(() => new KeywordRetriever({ analyzer: 5 as never }), 'options.analyzer');
    expectZerdaError(() => new KeywordRetriever({ kone: 1 } as never), 'options.kone');
    expectZerdaError(() => new KeywordRetriever({ name: '' }), 'options.name');
    expectZerdaError(() => new KeywordRetriever('fast' as never), 'options');
  });

  it('rejects bad retrieve and write arguments naming the field', async () => {
    const retriever = await build(english);
    await expectRejects(retriever.retrieve(5 as never), 'query');
    await expectRejects(retriever.retrieve('x', { topK: -1 }), 'options.topK');
    await expectRejects(retriever.retrieve('x', { topK: 1.5 }), 'options.topK');
    await expectRejects(retriever.retrieve('x', 'fast' as never), 'options');
    await expectRejects(retriever.index('chunks' as never), 'chunks');
    await expectRejects(retriever.add([{ docId: '', text: 'x' }] as never), 'chunks[0].docId');
    await expectRejects(retriever.remove('d1' as never), 'docIds');
    await expectRejects(retriever.remove([1] as never), 'docIds[0]');
  });

  it('checks a custom analyzer output', async () => {
    const retriever = new KeywordRetriever({ analyzer: { analyze: () => 'oops' as never } });
    await expectRejects(retriever.add([{ docId: 'x', text: 'x' }] as DocumentChunk[]), 'analyzer.analyze(chunks[0].text)');
  });

  it('survives arbitrary Unicode', async () => {
    // (A single 200 000-letter word is left out: @zerda/text's English stemmer is quadratic on it.)
    const weird = ['😀 emoji 👍🏽', '\u200f\u202eRTL marks', 'e\u0301\u0301 combining', '\ud800 lone surrogate', 'ـــ', 'كلمة word '.repeat(100_000), 'x'.repeat(300)];
    const retriever = await build(weird.map((text, index) => ({ docId: `w${index}`, text })));
    for (const query of weird) {
      const results = await retriever.retrieve(query);
      for (const result of results) expect(Number.isFinite(result.score)).toBe(true);
    }
  });
});
