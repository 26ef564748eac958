import { Analyzer, defaultAnalyzer, fnv1a, type AnalyzerOptions, type ResolvedAnalyzerOptions } from '@zerda/text';
import {
  createError,
  invalidArgument,
  matchesFilter,
  toDocumentChunks,
  type DocumentChunk,
  type MetadataFilter,
  readSnapshotJson,
  writeSnapshotJson,
  type RetrieveOptions,
  type Retriever,
  type ScoredChunk,
  type TermMatches,
  type SnapshotReader,
  type SnapshotWriter,
} from '@zerda/types';
import { readKeywordIndex, writeKeywordIndex } from './keyword-snapshot.js';
import { decodeUint32, encodeUint32 } from './binary-encoding.js';
import { Bm25Index, type AnalyzedChunk, type Bm25IndexStats, type Bm25Parameters, type WeightedTerm } from './bm25-index.js';
import { validateSnapshot } from './bm25-snapshot.js';
import { groupByDocument, neighborsIn } from './neighbors.js';
import { WriteQueue, yieldToEventLoop } from './write-queue.js';
import {
  RETRIEVAL_DEFAULTS,
  optionsObject,
  parseDocIds,
  parseName,
  parseRetrieveOptions,
  rejectUnknownOptions,
  renameErrorField,
} from './retrieve-options.js';

/** Anything that turns text into terms the same way at index and at query time. */
export interface TextAnalyzer {
  analyze(text: string): string[];
}

/** Options of {@link KeywordRetriever}. Every field is optional. */
export interface KeywordRetrieverOptions {
  /** Name recorded in `ScoredChunk.retrievers` and used for hybrid weights. Default `'keyword'`. */
  name?: string;
  /** BM25 term-frequency saturation. Default 1.2 (`retrieval.bm25.k1` of the engine config). */
  k1?: number;
  /** BM25 length normalisation, in [0, 1]. Default 0.75 (`retrieval.bm25.b`). */
  b?: number;
  /**
   * How much a title occurrence counts relative to a text occurrence (0 leaves titles out of the
   * index). Default 1: title and text behave as one field. Default from `retrieval.bm25.titleWeight`.
   */
  titleWeight?: number;
  /**
   * How text becomes terms: an `Analyzer` from `@zerda/text`, its options, or any object with
   * `analyze(text): string[]`. Default: the shared `defaultAnalyzer` (normalisation, stopwords and stemming per
   * token script, so Arabic, English and mixed text all work).
   */
  analyzer?: Analyzer | AnalyzerOptions | TextAnalyzer;
  /**
   * When incremental changes are merged into the compact main segment: once delta postings exceed
   * `deltaRatio` of the main postings, or removed chunks exceed `tombstoneRatio` of all chunk slots.
   * Defaults 0.25 and 0.25.
   */
  compaction?: { deltaRatio?: number; tombstoneRatio?: number };
}

/** Options of {@link KeywordRetriever.fromJSON}. */
export interface KeywordRetrieverLoadOptions {
  /** Overrides the recorded name. */
  name?: string;
  /** Required when the index was built with a custom (non-`Analyzer`) analyzer; must analyse identically. */
  analyzer?: Analyzer | TextAnalyzer;
}

/**
 * The JSON form of a keyword index ({@link KeywordRetriever.toJSON}). Typed arrays are little-endian
 * base64; `checksum` (32-bit FNV-1a of the rest, as JSON) makes damage detectable.
 */
export interface KeywordRetrieverJSON {
  format: 'zerda.keyword-retriever';
  version: 2;
  name: string;
  parameters: Bm25Parameters;
  /** The resolved options of the `Analyzer` used, or `null` for a custom analyzer. */
  analyzer: ResolvedAnalyzerOptions | null;
  compaction: { deltaRatio: number; tombstoneRatio: number };
  index: {
    terms: string[];
    chunks: Array<Omit<DocumentChunk, 'embedding'> & { embedding?: number[] }>;
    textLengths: string;
    titleLengths: string;
    offsets: string;
    postingChunks: string;
    postingFrequencies: string;
  };
  /** `fnv1a32:<hex>` of `JSON.stringify` of every other field, in this order. */
  checksum: string;
}

/** The checksum of a JSON form without its `checksum` field. */
function jsonChecksum(rest: Record<string, unknown>): string {
  return `fnv1a32:${fnv1a(JSON.stringify(rest)).toString(16).padStart(8, '0')}`;
}

const OPTION_KEYS = ['name', 'k1', 'b', 'titleWeight', 'analyzer', 'compaction'] as const;
/** Chunks analysed between two yields to the event loop while indexing. */
const ANALYSIS_BATCH = 2000;

function parseNonNegative(value: unknown, fallback: number, field: string, maximum = Number.POSITIVE_INFINITY): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > maximum) {
    throw invalidArgument(field, maximum === Number.POSITIVE_INFINITY ? 'a finite number >= 0' : `a number in [0, ${maximum}]`, value);
  }
  return value;
}

function resolveAnalyzer(value: unknown, field: string): Analyzer | TextAnalyzer {
  // The shared default analyzer keeps its per-word cache warm across retrievers.
  if (value === undefined) return defaultAnalyzer;
  if (value instanceof Analyzer) return value;
  if (typeof value === 'object' && value !== null && typeof (value as TextAnalyzer).analyze === 'function') return value as TextAnalyzer;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      return new Analyzer(value as AnalyzerOptions);
    } catch (error) {
      throw renameErrorField(error, 'options', field);
    }
  }
  throw invalidArgument(field, 'an Analyzer, analyzer options, or an object with analyze(text)', value);
}

/** Query terms with their counts, in first-occurrence order. */
function weightQueryTerms(terms: readonly string[]): WeightedTerm[] {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [...counts].map(([term, weight]) => ({ term, weight }));
}

function serializeChunk(chunk: DocumentChunk): Omit<DocumentChunk, 'embedding'> & { embedding?: number[] } {
  const { embedding, ...rest } = chunk;
  return embedding === undefined ? rest : { ...rest, embedding: Array.from(embedding) };
}

/**
 * Okapi BM25 keyword retrieval over an inverted index (not a scan over the corpus): only the
 * postings of the query's terms are read, scores accumulate term at a time, and a bounded heap keeps
 * the top k. Text and title are analysed with a `@zerda/text` Analyzer per token script, so Arabic,
 * English and mixed corpora work with one index.
 *
 * Scores are raw BM25 similarities in [0, ∞) (`score` and `scores.keyword`), using
 * idf = ln(1 + (N − df + 0.5) / (df + 0.5)) — always positive — and
 * tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avglen)), where a title occurrence counts `titleWeight` times.
 * Ties go to the chunk indexed first. A query whose terms are all absent, stopwords or empty returns [].
 *
 * Writes (`index`, `add`, `remove`) are applied in call order; each validates and analyses all its
 * chunks before changing anything, so a failed write leaves the index as it was. Updating a chunk
 * (adding an id that exists) keeps its place in insertion order.
 */
export class KeywordRetriever implements Retriever {
  readonly name: string;
  /** The BM25 parameters in use. */
  readonly parameters: Readonly<Bm25Parameters>;
  readonly analyzer: Analyzer | TextAnalyzer;
  private invertedIndex: Bm25Index;
  private readonly compaction: { deltaRatio: number; tombstoneRatio: number };
  private readonly writes = new WriteQueue();
  /** Chunks by document, in position order, for `neighbors`; rebuilt after a write changed the corpus. */
  private byDocument: { version: number; chunks: Map<string, DocumentChunk[]> } | undefined;
  /** Bumped by every write, so that `byDocument` knows when it is stale. */
  private version = 0;

  constructor(options: KeywordRetrieverOptions = {}) {
    const record = optionsObject(options, 'options');
    rejectUnknownOptions(record, OPTION_KEYS, 'options');
    const defaults = RETRIEVAL_DEFAULTS.bm25;
    this.name = parseName(record.name, 'keyword');
    this.parameters = Object.freeze({
      k1: parseNonNegative(record.k1, defaults.k1, 'options.k1'),
      b: parseNonNegative(record.b, defaults.b, 'options.b', 1),
      titleWeight: parseNonNegative(record.titleWeight, defaults.titleWeight, 'options.titleWeight'),
    });
    this.analyzer = resolveAnalyzer(record.analyzer, 'options.analyzer');
    const compaction = optionsObject(record.compaction, 'options.compaction');
    rejectUnknownOptions(compaction, ['deltaRatio', 'tombstoneRatio'], 'options.compaction');
    this.compaction = {
      deltaRatio: parseNonNegative(compaction.deltaRatio, 0.25, 'options.compaction.deltaRatio'),
      tombstoneRatio: parseNonNegative(compaction.tombstoneRatio, 0.25, 'options.compaction.tombstoneRatio', 1),
    };
    this.invertedIndex = new Bm25Index(this.compaction, { pruning: true, parameters: this.parameters });
  }

  /**
   * The `topK` best chunks for `query` by BM25, best first, each passing `options.filter`.
   * The query is analysed with this index's analyzer (never with `options.analysis`, whose
   * keywords may come from another analysis), repeated terms counting repeatedly. With an
   * `Analyzer` (not a custom `analyze` function), each hit carries `termMatches`: which query terms
   * its title or text contains, known from the postings.
   */
  async retrieve(query: string, options?: RetrieveOptions): Promise<ScoredChunk[]> {
    const { topK, filter } = parseRetrieveOptions(query, options);
    if (topK === 0 || this.invertedIndex.size === 0) return [];
    const terms = weightQueryTerms(this.terms(query, 'query'));
    const accept = filter ? (chunk: DocumentChunk) => matchesFilter(chunk, filter) : undefined;
    const analyzer = this.analyzer instanceof Analyzer ? this.analyzer.fingerprint : undefined;
    // Matches cover the title only when titles are indexed (titleWeight > 0).
    const titlesIndexed = this.parameters.titleWeight > 0;
    const name = this.name;
    // Hits with the same matched terms share one (frozen) TermMatches.
    const shared = new Map<readonly string[], TermMatches>();
    return this.invertedIndex.search(terms, topK, this.parameters, accept, (chunk, score, matched, checked): ScoredChunk => {
      const hit: ScoredChunk = { chunk, score, scores: { keyword: score }, retrievers: [name] };
      if (analyzer !== undefined && (titlesIndexed || !chunk.title)) {
        let termMatches = shared.get(matched);
        if (!termMatches) {
          termMatches = Object.freeze({ analyzer, checked, matched });
          shared.set(matched, termMatches);
        }
        hit.termMatches = termMatches;
      }
      return hit;
    }).hits;
  }

  /** Replaces the whole corpus (chunk inputs are validated as by `toDocumentChunks`; ids must be unique). */
  async index(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    await this.writes.run(async () => {
      // Build a fresh index while the current one keeps answering; swap when complete, so a failure
      // (a throwing custom analyzer) leaves the current index as it was. Chunks are analysed and
      // appended one by one, so their term lists are never all held at once.
      const next = new Bm25Index(this.compaction, { pruning: true, parameters: this.parameters });
      next.startBulk(validated.length);
      for (let index = 0; index < validated.length; index++) {
        if (index > 0 && index % ANALYSIS_BATCH === 0) await yieldToEventLoop();
        next.appendBulk(this.analyzeChunk(validated[index]!, index));
      }
      next.finishBulk();
      this.invertedIndex = next;
      this.version += 1;
    });
  }

  /** Adds chunks; a chunk whose id is already indexed is replaced and keeps its place. */
  async add(chunks: DocumentChunk[]): Promise<void> {
    const validated = toDocumentChunks(chunks, 'chunks');
    await this.writes.run(async () => {
      const entries = await this.analyzeChunks(validated);
      this.invertedIndex.add(entries);
      this.version += 1;
    });
  }

  /** Removes every chunk of the given documents (unknown ids are ignored). */
  async remove(docIds: string[]): Promise<void> {
    const ids = parseDocIds(docIds, 'docIds');
    await this.writes.run(() => {
      this.invertedIndex.removeDocuments(ids);
      this.version += 1;
    });
  }

  /** Removes chunks by chunk id (unknown ids are ignored). */
  async removeChunks(chunkIds: string[]): Promise<void> {
    const ids = parseDocIds(chunkIds, 'chunkIds');
    await this.writes.run(() => {
      this.invertedIndex.removeChunks(ids);
      this.version += 1;
    });
  }

  /**
   * The chunks next to `chunks` in their documents (`position.index` within `distance`), matching
   * `options.filter`, the given chunks excluded; see {@link Retriever.neighbors}. The first call
   * after a write groups the corpus by document once.
   */
  async neighbors(chunks: DocumentChunk[], distance: number, options: { filter?: MetadataFilter } = {}): Promise<DocumentChunk[]> {
    if (this.byDocument?.version !== this.version) this.byDocument = { version: this.version, chunks: groupByDocument(this.invertedIndex.allChunks()) };
    return neighborsIn(this.byDocument.chunks, chunks, distance, options);
  }

  /** Number of chunks indexed. */
  size(): number {
    return this.invertedIndex.size;
  }

  /** The indexed chunks, in insertion order. */
  chunks(): DocumentChunk[] {
    return this.invertedIndex.allChunks();
  }

  /** Sizes of the index (terms, postings, tombstones, typed-array bytes). */
  stats(): Bm25IndexStats {
    return this.invertedIndex.stats();
  }

  /** Merges pending incremental changes into the compact segment now (normally automatic). */
  compact(): void {
    this.invertedIndex.compact();
  }

  /**
   * The whole index as JSON-safe data: parameters, analyzer options, chunks and the compacted
   * postings (little-endian base64). {@link KeywordRetriever.fromJSON} restores an index that
   * returns exactly the same scores without re-analysing anything. Compacts first.
   */
  toJSON(): KeywordRetrieverJSON {
    const snapshot = this.invertedIndex.snapshot();
    const json: Omit<KeywordRetrieverJSON, 'checksum'> = {
      format: 'zerda.keyword-retriever',
      version: 2,
      name: this.name,
      parameters: { ...this.parameters },
      analyzer: this.analyzer instanceof Analyzer ? structuredClone(this.analyzer.options) as ResolvedAnalyzerOptions : null,
      compaction: { ...this.compaction },
      index: {
        terms: snapshot.terms,
        chunks: snapshot.chunks.map(serializeChunk),
        textLengths: encodeUint32(snapshot.textLengths),
        titleLengths: encodeUint32(snapshot.titleLengths),
        offsets: encodeUint32(snapshot.offsets),
        postingChunks: encodeUint32(snapshot.postingChunks),
        postingFrequencies: encodeUint32(snapshot.postingFrequencies),
      },
    };
    return { ...json, checksum: jsonChecksum(json) };
  }

  /**
   * Restores an index from {@link KeywordRetriever.toJSON} output (an object or its JSON string).
   * Everything is checked — the checksum first, so that damaged data is refused rather than loaded
   * with other scores — and corrupt or inconsistent data fails with `ZERDA_STORE_CORRUPT` naming the
   * field. Version-1 JSON (before checksums) still loads. An index built with a custom analyzer
   * needs `options.analyzer`.
   */
  static fromJSON(json: unknown, options: KeywordRetrieverLoadOptions = {}): KeywordRetriever {
    const loadOptions = optionsObject(options, 'options');
    rejectUnknownOptions(loadOptions, ['name', 'analyzer'], 'options');
    let data: unknown = json;
    if (typeof json === 'string') {
      try {
        data = JSON.parse(json);
      } catch (error) {
        throw createError('ZERDA_STORE_CORRUPT', { path: 'json', field: 'json', reason: `not valid JSON (${(error as Error).message})` }, error);
      }
    }
    const corrupt = (field: string, reason: string): never => {
      throw createError('ZERDA_STORE_CORRUPT', { path: field, field, reason });
    };
    if (typeof data !== 'object' || data === null || Array.isArray(data)) corrupt('json', 'expected the object KeywordRetriever.toJSON() returns');
    const record = data as Record<string, unknown>;
    if (record.format !== 'zerda.keyword-retriever') corrupt('json.format', `expected "zerda.keyword-retriever", got ${JSON.stringify(record.format)}`);
    if (record.version !== 1 && record.version !== 2) corrupt('json.version', `unsupported version ${JSON.stringify(record.version)} (this package reads versions 1 and 2)`);
    if (record.version === 2 || record.checksum !== undefined) {
      const { checksum, ...rest } = record;
      if (typeof checksum !== 'string') corrupt('json.checksum', 'missing (version 2 JSON carries a checksum)');
      if (checksum !== jsonChecksum(rest)) corrupt('json.checksum', 'it does not match the content (the JSON was changed or damaged)');
    }
    const parameters = record.parameters as Record<string, unknown> | undefined;
    if (typeof parameters !== 'object' || parameters === null) corrupt('json.parameters', 'expected { k1, b, titleWeight }');
    const index = record.index as Record<string, unknown> | undefined;
    if (typeof index !== 'object' || index === null) corrupt('json.index', 'expected the index arrays');
    let analyzer = loadOptions.analyzer as Analyzer | TextAnalyzer | undefined;
    if (analyzer === undefined) {
      if (record.analyzer === null) corrupt('json.analyzer', 'the index was built with a custom analyzer: pass the same analyzer as options.analyzer');
      analyzer = resolveAnalyzer(record.analyzer, 'json.analyzer');
    }
    let retriever: KeywordRetriever;
    try {
      retriever = new KeywordRetriever({
        name: (loadOptions.name as string | undefined) ?? (record.name as string | undefined),
        k1: parameters!.k1 as number,
        b: parameters!.b as number,
        titleWeight: parameters!.titleWeight as number,
        analyzer,
        compaction: record.compaction as KeywordRetrieverOptions['compaction'],
      });
    } catch (error) {
      throw renameErrorField(error, 'options', 'json');
    }
    const decode = (key: string): Uint32Array => decodeUint32(index![key]) ?? corrupt(`json.index.${key}`, 'expected little-endian base64 of 32-bit integers');
    const terms = index!.terms;
    if (!Array.isArray(terms) || !terms.every((term) => typeof term === 'string' && term.length > 0)) corrupt('json.index.terms', 'expected an array of non-empty strings');
    let chunks: DocumentChunk[];
    try {
      chunks = toDocumentChunks(index!.chunks, 'json.index.chunks');
    } catch (error) {
      throw createError('ZERDA_STORE_CORRUPT', { path: 'json.index.chunks', field: 'json.index.chunks', reason: (error as Error).message }, error);
    }
    const snapshot = {
      terms: terms as string[],
      chunks,
      textLengths: decode('textLengths'),
      titleLengths: decode('titleLengths'),
      offsets: decode('offsets'),
      postingChunks: decode('postingChunks'),
      postingFrequencies: decode('postingFrequencies'),
    };
    const problem = validateSnapshot(snapshot);
    if (problem) corrupt('json.index', problem);
    retriever.invertedIndex.load(snapshot);
    return retriever;
  }

  /**
   * Writes the index into a snapshot (`ContextEngine.save`): `keyword.json` (name, BM25 parameters,
   * analyzer options, compaction policy) and the index arrays and chunks in binary (see
   * keyword-snapshot.ts). Queued like a write: earlier writes land first, later ones wait.
   */
  async writeSnapshot(writer: SnapshotWriter): Promise<void> {
    await this.writes.run(async () => {
      await writeSnapshotJson(writer, 'keyword.json', {
        format: 'zerda.keyword-retriever',
        version: 2,
        name: this.name,
        parameters: { ...this.parameters },
        analyzer: this.analyzer instanceof Analyzer ? this.analyzer.options : null,
        compaction: { ...this.compaction },
      });
      await writeKeywordIndex(writer.scope('index'), this.invertedIndex.segmentSnapshot());
    });
  }

  /**
   * Replaces the index with a snapshot written by {@link writeSnapshot}, without re-analysing
   * anything. The snapshot must have been written with this retriever's BM25 parameters and
   * analyzer options (they shape the index); a mismatch is refused with `ZERDA_INVALID_ARGUMENT`
   * naming the setting. Every file is verified and checked before the index is replaced.
   */
  async readSnapshot(reader: SnapshotReader): Promise<void> {
    const meta = await readSnapshotJson(reader, 'keyword.json');
    if (meta.format !== 'zerda.keyword-retriever') throw reader.corrupt('keyword.json', 'format', `expected format "zerda.keyword-retriever", got ${JSON.stringify(meta.format)}`);
    if (meta.version !== 2) throw reader.corrupt('keyword.json', 'version', `keyword snapshot version ${JSON.stringify(meta.version)} is not supported (this version reads 2)`);
    const parameters = (meta.parameters ?? {}) as Record<string, unknown>;
    for (const key of ['k1', 'b', 'titleWeight'] as const) {
      if (parameters[key] !== this.parameters[key]) {
        throw createError('ZERDA_INVALID_ARGUMENT', {
          field: `retrieval.bm25.${key}`,
          expected: `${JSON.stringify(parameters[key])}, the value the snapshot's keyword index was built with (re-index to change it)`,
          received: `number ${this.parameters[key]}`,
        });
      }
    }
    const recorded = meta.analyzer ?? null;
    const own = this.analyzer instanceof Analyzer ? this.analyzer.options : null;
    if ((recorded === null) !== (own === null) || (own !== null && JSON.stringify(recorded) !== JSON.stringify(own))) {
      throw createError('ZERDA_INVALID_ARGUMENT', {
        field: 'analyzer',
        expected: recorded === null ? 'the custom analyzer the snapshot was built with' : `an Analyzer with the options the snapshot was built with (${JSON.stringify(recorded).slice(0, 200)})`,
        received: own === null ? 'a custom analyzer' : 'an Analyzer with other options',
      });
    }
    const snapshot = await readKeywordIndex(reader.scope('index'));
    await this.writes.run(() => {
      const next = new Bm25Index(this.compaction);
      next.load(snapshot);
      this.invertedIndex = next;
    });
  }

  /** Terms of `text`; a custom analyzer's output is checked (strings only, empty ones dropped). */
  private terms(text: string, field: string): string[] {
    const terms = this.analyzer.analyze(text);
    if (this.analyzer instanceof Analyzer) return terms;
    if (!Array.isArray(terms)) throw invalidArgument(`analyzer.analyze(${field})`, 'an array of strings', terms);
    const kept: string[] = [];
    for (const term of terms) {
      if (typeof term !== 'string') throw invalidArgument(`analyzer.analyze(${field})[${kept.length}]`, 'a string', term);
      if (term.length > 0) kept.push(term);
    }
    return kept;
  }

  /** A validated chunk with its analysed text and title (the title only when it carries weight). */
  private analyzeChunk(chunk: DocumentChunk, index: number): AnalyzedChunk {
    return {
      chunk,
      textTerms: this.terms(chunk.text, `chunks[${index}].text`),
      titleTerms: this.parameters.titleWeight > 0 && chunk.title ? this.terms(chunk.title, `chunks[${index}].title`) : [],
    };
  }

  /** Validated chunks → analysed entries, yielding to the event loop between batches. */
  private async analyzeChunks(chunks: readonly DocumentChunk[]): Promise<AnalyzedChunk[]> {
    const entries: AnalyzedChunk[] = new Array(chunks.length);
    for (let index = 0; index < chunks.length; index++) {
      if (index > 0 && index % ANALYSIS_BATCH === 0) await yieldToEventLoop();
      entries[index] = this.analyzeChunk(chunks[index]!, index);
    }
    return entries;
  }
}
