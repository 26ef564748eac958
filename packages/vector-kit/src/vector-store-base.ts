import {
  WriteQueue,
  createError,
  invalidArgument,
  matchesFilter,
  validateEmbedding,
  validateIdList,
  validateSearchOptions,
  type DocumentChunk,
  type EmbedFunction,
  type Embedder,
  type Embedding,
  type MetadataFilter,
  type SnapshotReader,
  type SnapshotWriter,
  type VectorMetric,
  type VectorSearchHit,
  type VectorSearchOptions,
  type VectorStore,
  type VectorStoreCapabilities,
  type ZerdaError,
} from '@zerda/types';
import { backendError } from './backend-error.js';
import { batches } from './batches.js';
import { embedMissing, validateChunks, validateVectors } from './chunks.js';
import { fetchUntilMatches } from './over-fetch.js';
import { Preparation } from './preparation.js';
import { checkStorableChunk, storableDistinct, type StorablePolicy } from './storable.js';
import { similarityFrom, topHits, type DistanceConvention } from './similarity.js';

/** What an adapter declares about its backend (passed once to the {@link VectorStoreBase} constructor). */
export interface VectorStoreSettings {
  /** Short backend name (`memory`, `chroma` …), the store's `name`. */
  name: string;
  metric: VectorMetric;
  /** Fixed at construction, or undefined (the backend or the first vector decides). */
  dimensions?: number | undefined;
  /** What the store can do besides the core; `embeds` follows from `embedder`. */
  capabilities: Omit<VectorStoreCapabilities, 'embeds'>;
  /** How the backend reports closeness in `doQuery` hits that carry a `distance`. */
  distance: DistanceConvention;
  /** Records (or ids) per `doUpsert`/`doDelete`/`doFetch` call; default: the whole call at once. */
  batchSize?: number;
  /** Text the backend cannot store (see {@link StorablePolicy}); default: any string. */
  storable?: StorablePolicy;
  /**
   * Embeds chunks that arrive without an embedding (then `capabilities.embeds` is true). A store
   * that takes an embedder option passes this key even when it is undefined, so that a chunk
   * without an embedding is reported as "this store has no embedder to compute one".
   */
  embedder?: Embedder | EmbedFunction | undefined;
  /** Search option keys besides `k` and `filter` (checked by `checkSearchOptions`). */
  searchOptions?: readonly string[];
  /** Text search option keys besides `k` and `filter`. */
  textSearchOptions?: readonly string[];
  /** The most hits one query can return (Pinecone's 1,000); `k` is capped to it. */
  maxK?: number;
  /** First over-fetch factor when a translated filter is not exact. Default 4. */
  overFetch?: number;
}

/** A validated chunk to write, with its embedding as a Float32Array of the store's dimension. */
export interface VectorRecord {
  chunk: DocumentChunk;
  vector: Float32Array;
}

/**
 * A filter as the backend takes it. `exact: false` means `filter` keeps a superset: the kit checks
 * every candidate with `matchesFilter` and over-fetches until `k` match. `matchesNothing` skips
 * the query.
 */
export interface TranslatedFilter<F> {
  filter: F | undefined;
  exact: boolean;
  matchesNothing?: boolean;
}

/** One vector query handed to `doQuery`. */
export interface VectorQuery<F> {
  vector: Float32Array;
  /** Hits the caller wants. */
  k: number;
  /** Candidates to return (at least `k` when over-fetching; never above the backend's cap). */
  limit: number;
  filter: F | undefined;
  /** The caller's search options (already checked), for backend knobs. */
  options: VectorSearchOptions;
}

/** One text query handed to `doTextSearch`. */
export interface TextQuery<F> extends Omit<VectorQuery<F>, 'vector'> {
  query: string;
}

/** A hit as a backend returns it: a raw `distance` in the declared convention, or a finished similarity `score`. */
export type QueryHit = { chunk: DocumentChunk; distance: number } | { chunk: DocumentChunk; score: number };

/**
 * The base of a zerda vector store: it implements the whole `VectorStore` v1 contract from a few
 * backend methods, in the way unstorage's `createStorage` turns a driver's three methods into its
 * whole API. An adapter extends it and implements:
 *
 * - required: `doUpsert(records)` (write a batch, replacing ids that exist), `doQuery(query)` (the
 *   nearest `limit` chunks for a vector and a translated filter), `doDelete(key, values)` (by chunk
 *   ids or by document ids) and `doCount()`;
 * - optional: `doPrepare(dimensions, create)` (connect, find or create the table), `doFetch(ids)`,
 *   `doClear()` (otherwise `doListIds()` + `doDelete`), `doTextSearch(query)`,
 *   `translateFilter(filter)` (default: the zerda filter, exactly), `doWriteSnapshot(writer)` and
 *   `doReadSnapshot(reader)`, `checkSearchOptions(options)` for backend knobs.
 *
 * The kit does the rest once for every backend: argument validation (chunks, embeddings and their
 * dimension, ids, search options, storable text), embedding chunks without one, single-flight
 * preparation, one write queue (writes apply one at a time, in call order), batching, over-fetch
 * until `k` matches for filters the backend cannot express exactly, similarity conversion and
 * ordering (`compareSearchHits`), ZerdaErrors for backend failures, `get` in the order asked.
 */
export abstract class VectorStoreBase<F = MetadataFilter, R = VectorRecord> implements VectorStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly metric: VectorMetric;
  readonly capabilities: VectorStoreCapabilities;

  /** The dimension: fixed at construction, learnt from the backend in `doPrepare`, or set by the first `add`. */
  protected dimensionsValue: number | undefined;
  /** Writes (`add`, `delete`, `clear`, snapshots, and the adapter's own) run here one at a time. */
  protected readonly writes = new WriteQueue();
  protected readonly settings: Readonly<VectorStoreSettings>;
  private readonly preparation = new Preparation((dimensions, create) => this.doPrepare(dimensions, create));
  private closed = false;

  protected constructor(settings: VectorStoreSettings) {
    this.settings = Object.freeze({ ...settings });
    this.name = settings.name;
    this.metric = settings.metric;
    this.dimensionsValue = settings.dimensions;
    this.capabilities = Object.freeze({ ...settings.capabilities, embeds: settings.embedder !== undefined });
  }

  /** The vector dimension, once known. */
  get dimensions(): number | undefined {
    return this.dimensionsValue;
  }

  /** The name backend errors carry: the store's `location` when it has one, else its `name`. */
  protected get component(): string {
    const location = (this as { location?: unknown }).location;
    return typeof location === 'string' ? location : this.name;
  }

  // ---- backend methods ------------------------------------------------------------------------

  /** Writes records, replacing those whose id exists. Called inside the write queue, once per batch. */
  protected abstract doUpsert(records: R[]): Promise<void>;
  /** The nearest `query.limit` chunks to `query.vector` that the translated filter admits. */
  protected abstract doQuery(query: VectorQuery<F>): Promise<QueryHit[]>;
  /** Deletes by chunk id or by document id (`values` are distinct and storable; unknown ones are ignored). */
  protected abstract doDelete(key: 'id' | 'docId', values: string[]): Promise<void>;
  protected abstract doCount(): Promise<number>;

  /**
   * Makes the backend usable (connect, open or create the table, learn its dimension into
   * `dimensionsValue`); `false` when there is nothing yet and `create` is false. Runs single-flight.
   * Default: always ready.
   */
  protected async doPrepare(_dimensions: number | undefined, _create: boolean): Promise<boolean> {
    return true;
  }

  /** Fetches stored chunks by id (any order; missing ids absent). Without it `get` is unsupported. */
  protected doFetch?(ids: string[]): Promise<DocumentChunk[]>;
  /** Removes every chunk. Without it, `clear` deletes every id `doListIds` reports. */
  protected doClear?(): Promise<void>;
  /** Every stored chunk id (the fallback of `clear`). */
  protected doListIds?(): Promise<string[]>;
  /** Keyword search: the best `query.limit` chunks (hits with similarity scores >= 0). */
  protected doTextSearch?(query: TextQuery<F>): Promise<QueryHit[]>;
  protected doWriteSnapshot?(writer: SnapshotWriter): Promise<void>;
  protected doReadSnapshot?(reader: SnapshotReader): Promise<void>;

  /** The filter as the backend takes it. Default: the zerda filter itself, evaluated exactly by the backend. */
  protected translateFilter(filter: MetadataFilter | undefined): TranslatedFilter<F> {
    return { filter: filter as F | undefined, exact: true };
  }

  /** Checks backend knobs of `search` options (called before anything else happens). */
  protected checkSearchOptions(_options: VectorSearchOptions): void {}

  /** Checks backend knobs of `textSearch` options. */
  protected checkTextSearchOptions(_options: VectorSearchOptions): void {}

  /** Turns a validated record into what `doUpsert` takes; may refuse it (a ZerdaError naming `chunks[index]`). Default: the record. */
  protected toRecord(record: VectorRecord, _index: number): R {
    return record as R;
  }

  /** Groups records into `doUpsert` calls. Default: `batchSize` records each (all at once without one). */
  protected batchRecords(records: R[]): R[][] {
    return this.settings.batchSize === undefined ? [records] : batches(records, this.settings.batchSize);
  }

  /** The most candidates an over-fetching query may ask for. Default: the stored count (or `maxK`). */
  protected async candidateCeiling(_filter: TranslatedFilter<F>): Promise<number> {
    return this.settings.maxK ?? (await this.doCount());
  }

  // ---- helpers for adapters -------------------------------------------------------------------

  /** Single-flight preparation (see `doPrepare`); creates when `create` (default: when `dimensions` is known). */
  protected prepare(dimensions?: number, create = dimensions !== undefined): Promise<boolean> {
    return this.preparation.run(dimensions, create);
  }

  /** Forgets that the backend was prepared (dropped table, changed layout): the next call prepares again. */
  protected resetPreparation(): void {
    this.preparation.reset();
  }

  /** A backend failure as a ZerdaError naming this store (`ZERDA_BACKEND_ERROR`; ZerdaErrors pass through). */
  protected backendError(operation: string, error: unknown): ZerdaError {
    return backendError(this.component, operation, error);
  }

  /** Runs a backend call, turning its failure into {@link backendError}. */
  protected async backend<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.backendError(operation, error);
    }
  }

  /** Marks the store closed: every later call rejects with ZERDA_NOT_READY (every public method is async: it never throws synchronously). */
  protected markClosed(): void {
    this.closed = true;
  }

  protected assertOpen(): void {
    if (this.closed) throw createError('ZERDA_NOT_READY', { component: `${this.name} store ${this.component}`, reason: 'it was closed' });
  }

  /** A backend hit as a zerda hit (`distance` converted in the declared convention). */
  protected toHit(hit: QueryHit): VectorSearchHit {
    return 'score' in hit ? { chunk: hit.chunk, score: hit.score } : { chunk: hit.chunk, score: similarityFrom(this.metric, this.settings.distance, hit.distance) };
  }

  // ---- the VectorStore contract ---------------------------------------------------------------

  /**
   * Adds or replaces chunks. The whole call is validated before anything is written — chunk shape,
   * embeddings (computed by the embedder when there is one) and their dimension, text the backend
   * can store, the adapter's own record checks — then written batch by batch in the write queue.
   */
  async add(chunks: DocumentChunk[]): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      const validated = validateChunks(chunks);
      if (validated.length === 0) return;
      await embedMissing(validated, this.settings.embedder, 'embedder' in this.settings);
      // An existing table fixes the dimension: learn it before judging the vectors.
      if (this.dimensionsValue === undefined) await this.prepare();
      const { vectors, dimensions } = validateVectors(validated, this.dimensionsValue);
      const storable = this.settings.storable;
      const records = validated.map((chunk, i) => {
        if (storable) checkStorableChunk(chunk, i, storable);
        return this.toRecord({ chunk, vector: vectors[i]! }, i);
      });
      await this.prepare(dimensions);
      if (this.dimensionsValue !== undefined && this.dimensionsValue !== dimensions) {
        // Another writer created the table with another dimension meanwhile.
        throw createError('ZERDA_DIMENSION_MISMATCH', { field: 'chunks[0].embedding', received: String(dimensions), expected: String(this.dimensionsValue) });
      }
      this.dimensionsValue = dimensions;
      for (const batch of this.batchRecords(records)) await this.backend('upsert', () => this.doUpsert(batch));
    });
  }

  /** The `k` chunks most similar to `vector`, best first, each matching `options.filter`. */
  async search(vector: Embedding, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    const { k, filter } = validateSearchOptions(options, this.settings.searchOptions);
    this.checkSearchOptions(options);
    let query = validateEmbedding(vector, 'vector', this.dimensionsValue);
    if (!(await this.prepare())) return [];
    // The backend may have told us the dimension only now.
    if (query.length !== this.dimensionsValue) query = validateEmbedding(query, 'vector', this.dimensionsValue);
    if (k === 0) return [];
    return this.collect(k, filter, 'query', (translated, limit) => this.doQuery({ vector: query, k, limit, filter: translated, options }));
  }

  /**
   * Keyword search through `doTextSearch` (for adapters declaring `capabilities.textSearch`; they
   * expose it as `textSearch`). Validation, preparation, filters and ordering as in `search`.
   */
  protected async searchText(query: string, options: VectorSearchOptions): Promise<VectorSearchHit[]> {
    this.assertOpen();
    if (typeof query !== 'string') throw invalidArgument('query', 'a string', query);
    const { k, filter } = validateSearchOptions(options, this.settings.textSearchOptions);
    this.checkTextSearchOptions(options);
    if (!this.capabilities.textSearch || !this.doTextSearch) {
      throw createError('ZERDA_UNSUPPORTED', { operation: 'textSearch', component: `this ${this.name} store`, reason: 'it answers no keyword queries (capabilities.textSearch is false)' });
    }
    if (k === 0 || !(await this.prepare())) return [];
    return this.collect(k, filter, 'textSearch', (translated, limit) => this.doTextSearch!({ query, k, limit, filter: translated, options }));
  }

  /** Runs a query with the translated filter: once when it is exact, else over-fetching until `k` match. */
  private async collect(k: number, filter: MetadataFilter | undefined, operation: string, run: (filter: F | undefined, limit: number) => Promise<QueryHit[]>): Promise<VectorSearchHit[]> {
    const translated = this.translateFilter(filter);
    if (translated.matchesNothing) return [];
    const wanted = Math.min(k, this.settings.maxK ?? k);
    const fetch = async (limit: number) => (await this.backend(operation, () => run(translated.filter, limit))).map((hit) => this.toHit(hit));
    if (translated.exact || filter === undefined) return topHits(await fetch(wanted), wanted);
    return fetchUntilMatches({
      k: wanted,
      first: wanted * (this.settings.overFetch ?? 4),
      max: await this.backend('count', () => this.candidateCeiling(translated)),
      fetch,
      matches: (hit) => matchesFilter(hit.chunk, filter),
    });
  }

  /** Deletes chunks by id; unknown ids are ignored. */
  async delete(ids: string[]): Promise<void> {
    return this.deleteBy('id', validateIdList(ids, 'ids'), 'delete');
  }

  /** Deletes every chunk of the given documents. */
  async deleteByDocIds(docIds: string[]): Promise<void> {
    return this.deleteBy('docId', validateIdList(docIds, 'docIds'), 'deleteByDocIds');
  }

  private async deleteBy(key: 'id' | 'docId', values: string[], operation: string): Promise<void> {
    this.assertOpen();
    const distinct = storableDistinct(values, this.settings.storable);
    if (distinct.length === 0) return;
    await this.writes.run(async () => {
      if (!(await this.prepare())) return;
      const size = this.settings.batchSize ?? distinct.length;
      for (const batch of batches(distinct, size)) await this.backend(operation, () => this.doDelete(key, batch));
    });
  }

  /** Number of stored chunks (0 before the backend holds any). */
  async count(): Promise<number> {
    this.assertOpen();
    if (!(await this.prepare())) return 0;
    return this.backend('count', () => this.doCount());
  }

  /** Fetches chunks by id, in the order asked; missing ids are skipped. */
  async get(ids: string[]): Promise<DocumentChunk[]> {
    this.assertOpen();
    const wanted = validateIdList(ids, 'ids');
    if (!this.doFetch) throw createError('ZERDA_UNSUPPORTED', { operation: 'get', component: `this ${this.name} store`, reason: 'its backend cannot fetch by id' });
    const distinct = storableDistinct(wanted, this.settings.storable);
    if (distinct.length === 0 || !(await this.prepare())) return [];
    const found = new Map<string, DocumentChunk>();
    for (const batch of batches(distinct, this.settings.batchSize ?? distinct.length)) {
      for (const chunk of await this.backend('get', () => this.doFetch!(batch))) found.set(chunk.id, chunk);
    }
    return wanted.flatMap((id) => {
      const chunk = found.get(id);
      return chunk ? [chunk] : [];
    });
  }

  /** Removes every chunk (`doClear`, or deleting every listed id). */
  async clear(): Promise<void> {
    this.assertOpen();
    return this.writes.run(async () => {
      if (!(await this.prepare())) return;
      if (this.doClear) return this.backend('clear', () => this.doClear!());
      if (!this.doListIds) throw createError('ZERDA_UNSUPPORTED', { operation: 'clear', component: `this ${this.name} store`, reason: 'its backend can neither clear nor list ids' });
      const ids = await this.backend('clear', () => this.doListIds!());
      for (const batch of batches(ids, this.settings.batchSize ?? Math.max(1, ids.length))) await this.backend('clear', () => this.doDelete('id', batch));
    });
  }

  /** Writes the whole store into a snapshot, in the write queue (for adapters declaring `capabilities.snapshot`). */
  protected async snapshotTo(writer: SnapshotWriter): Promise<void> {
    this.assertOpen();
    if (!this.doWriteSnapshot) throw createError('ZERDA_UNSUPPORTED', { operation: 'writeSnapshot', component: `this ${this.name} store`, reason: 'it keeps no snapshot' });
    return this.writes.run(() => this.doWriteSnapshot!(writer));
  }

  /** Restores a snapshot into this store, which must be empty, in the write queue. */
  protected async restoreFrom(reader: SnapshotReader): Promise<void> {
    this.assertOpen();
    if (!this.doReadSnapshot) throw createError('ZERDA_UNSUPPORTED', { operation: 'readSnapshot', component: `this ${this.name} store`, reason: 'it keeps no snapshot' });
    return this.writes.run(async () => {
      if ((await this.doCount()) > 0) throw createError('ZERDA_UNSUPPORTED', { operation: 'readSnapshot', component: `a ${this.constructor.name} that holds chunks`, reason: 'restore into an empty store' });
      await this.doReadSnapshot!(reader);
    });
  }
}
