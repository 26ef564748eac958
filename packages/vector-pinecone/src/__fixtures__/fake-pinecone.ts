/**
 * An in-process stand-in for Pinecone's REST API, for CONTRACT TESTS ONLY. It answers the
 * requests the official client sends (through its `fetchApi` option) with the semantics Pinecone
 * documents — metadata types, filter operators, list-field matching, limits, score conventions —
 * and it REFUSES whatever the documentation leaves open (for instance `$ne`/`$nin` evaluated on a
 * record that lacks the field, or `$not`), so that a test passing here shows the store relies only
 * on documented behaviour. It is not Pinecone: approximate search, eventual consistency, rate
 * limits and server-side validation details are not modelled.
 */

type Metric = 'cosine' | 'dotproduct' | 'euclidean';
type MetadataValue = string | number | boolean | string[];
type Metadata = Record<string, MetadataValue>;

interface StoredVector {
  id: string;
  values: number[];
  metadata?: Metadata;
}

/** One HTTP request the client made: method, path, query, JSON body and headers. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  body: unknown;
  headers: Record<string, string>;
}

export interface FakePineconeOptions {
  indexName?: string;
  dimension: number;
  metric: Metric;
}

/** Pinecone's documented limits that the fake enforces. */
export const LIMITS = { upsertRecords: 1000, upsertBytes: 2 * 1024 * 1024, metadataBytes: 40 * 1024, topK: 10_000, topKWithData: 1000, deleteIds: 1000, inValues: 10_000 };

class BadRequest extends Error {}

/** Raised when a filter depends on behaviour Pinecone does not document. */
class UndocumentedSemantics extends Error {}

function isMetadataValue(value: unknown): value is MetadataValue {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isFilterScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function equalsAny(stored: MetadataValue, value: string | number | boolean): boolean {
  return Array.isArray(stored) ? stored.includes(value as string) : stored === value;
}

function evaluateOperator(field: string, stored: MetadataValue | undefined, operator: string, operand: unknown): boolean {
  switch (operator) {
    case '$eq':
    case '$ne': {
      if (!isFilterScalar(operand)) throw new BadRequest(`${operator} on "${field}" takes a string, number or boolean`);
      if (stored === undefined) {
        if (operator === '$eq') return false;
        throw new UndocumentedSemantics(`$ne on "${field}" evaluated for a record without that field`);
      }
      return operator === '$eq' ? equalsAny(stored, operand) : !equalsAny(stored, operand);
    }
    case '$in':
    case '$nin': {
      if (!Array.isArray(operand) || !operand.every(isFilterScalar)) throw new BadRequest(`${operator} on "${field}" takes an array of strings or numbers`);
      if (operand.length > LIMITS.inValues) throw new BadRequest(`${operator} takes at most ${LIMITS.inValues} values`);
      if (stored === undefined) {
        if (operator === '$in') return false;
        throw new UndocumentedSemantics(`$nin on "${field}" evaluated for a record without that field`);
      }
      const any = operand.some((value) => equalsAny(stored, value));
      return operator === '$in' ? any : !any;
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      if (typeof operand !== 'number' || !Number.isFinite(operand)) throw new BadRequest(`${operator} on "${field}" takes a number`);
      if (typeof stored !== 'number') return false;
      return operator === '$gt' ? stored > operand : operator === '$gte' ? stored >= operand : operator === '$lt' ? stored < operand : stored <= operand;
    }
    case '$exists':
      if (typeof operand !== 'boolean') throw new BadRequest(`$exists on "${field}" takes a boolean`);
      return (stored !== undefined) === operand;
    default:
      throw new BadRequest(`unsupported operator ${operator} on "${field}"`);
  }
}

/** Pinecone's documented filter language: field conditions, `$and`, `$or`; nothing else. */
export function evaluateFilter(filter: unknown, metadata: Metadata): boolean {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw new BadRequest('a filter must be an object');
  const entries = Object.entries(filter);
  if (entries.length === 0) throw new BadRequest('an empty filter object');
  return entries.every(([key, condition]) => {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(condition) || condition.length === 0) throw new BadRequest(`${key} takes a non-empty array`);
      return key === '$and' ? condition.every((child) => evaluateFilter(child, metadata)) : condition.some((child) => evaluateFilter(child, metadata));
    }
    if (key.startsWith('$')) throw new BadRequest(`unsupported operator ${key}`);
    const stored = Object.prototype.hasOwnProperty.call(metadata, key) ? metadata[key] : undefined;
    if (condition !== null && typeof condition === 'object' && !Array.isArray(condition)) {
      const operators = Object.entries(condition);
      if (operators.length === 0) throw new BadRequest(`an empty condition on "${key}"`);
      return operators.every(([operator, operand]) => evaluateOperator(key, stored, operator, operand));
    }
    return evaluateOperator(key, stored, '$eq', condition);
  });
}

function score(metric: Metric, query: number[], values: number[]): number {
  let dot = 0;
  let queryNorm = 0;
  let valueNorm = 0;
  let squared = 0;
  for (let i = 0; i < query.length; i++) {
    const a = Math.fround(query[i]!);
    const b = Math.fround(values[i]!);
    dot += a * b;
    queryNorm += a * a;
    valueNorm += b * b;
    squared += (a - b) * (a - b);
  }
  if (metric === 'dotproduct') return dot;
  if (metric === 'euclidean') return squared;
  return queryNorm === 0 || valueNorm === 0 ? 0 : dot / Math.sqrt(queryNorm * valueNorm);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Creates the fake: `fetchApi` goes into `new Pinecone({ apiKey, fetchApi })`, `host` into
 * `pinecone.index({ host })`. Every request is recorded in `requests`.
 */
export function createFakePinecone(options: FakePineconeOptions) {
  const indexName = options.indexName ?? 'zerda-test';
  const host = `${indexName}-fake.svc.pinecone.test`;
  const namespaces = new Map<string, Map<string, StoredVector>>();
  const requests: RecordedRequest[] = [];
  const namespaceOf = (name: unknown): Map<string, StoredVector> => {
    const key = typeof name === 'string' ? name : '';
    let space = namespaces.get(key);
    if (!space) namespaces.set(key, (space = new Map()));
    return space;
  };

  const handle = (method: string, path: string, query: Record<string, string[]>, body: Record<string, unknown>): Response => {
    if (method === 'GET' && path === `/indexes/${indexName}`) {
      return json(200, { name: indexName, dimension: options.dimension, metric: options.metric, host, spec: { serverless: { cloud: 'aws', region: 'us-east-1' } }, status: { ready: true, state: 'Ready' }, vector_type: 'dense', deletion_protection: 'disabled' });
    }
    if (method === 'POST' && path === '/vectors/upsert') {
      const vectors = body.vectors as StoredVector[];
      if (!Array.isArray(vectors) || vectors.length === 0) throw new BadRequest('vectors must be a non-empty array');
      if (vectors.length > LIMITS.upsertRecords) throw new BadRequest(`at most ${LIMITS.upsertRecords} vectors per upsert`);
      for (const vector of vectors) {
        if (typeof vector.id !== 'string' || vector.id.length === 0) throw new BadRequest('every vector needs an id');
        if (!Array.isArray(vector.values) || vector.values.length !== options.dimension || !vector.values.every(Number.isFinite)) throw new BadRequest(`vector ${vector.id}: dimension ${vector.values?.length} does not match the index dimension ${options.dimension}`);
        for (const [key, value] of Object.entries(vector.metadata ?? {})) {
          if (!isMetadataValue(value)) throw new BadRequest(`metadata value of "${key}" must be a string, number, boolean or list of strings`);
        }
        if (Buffer.byteLength(JSON.stringify(vector.metadata ?? {})) > LIMITS.metadataBytes) throw new BadRequest(`metadata of ${vector.id} exceeds ${LIMITS.metadataBytes} bytes`);
      }
      const space = namespaceOf(body.namespace);
      for (const vector of vectors) space.set(vector.id, { id: vector.id, values: [...vector.values], ...(vector.metadata ? { metadata: structuredClone(vector.metadata) } : {}) });
      return json(200, { upsertedCount: vectors.length });
    }
    if (method === 'POST' && path === '/query') {
      const topK = body.topK;
      const withData = body.includeMetadata === true || body.includeValues === true;
      if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > (withData ? LIMITS.topKWithData : LIMITS.topK)) throw new BadRequest(`topK must be an integer from 1 to ${withData ? LIMITS.topKWithData : LIMITS.topK}`);
      const vector = body.vector as number[];
      if (!Array.isArray(vector) || vector.length !== options.dimension) throw new BadRequest('query vector dimension does not match the index');
      const space = namespaceOf(body.namespace);
      const candidates = [...space.values()].filter((stored) => body.filter === undefined || evaluateFilter(body.filter, stored.metadata ?? {}));
      const scored = candidates.map((stored) => ({ stored, score: score(options.metric, vector, stored.values) }));
      scored.sort((a, b) => (options.metric === 'euclidean' ? a.score - b.score : b.score - a.score));
      return json(200, {
        matches: scored.slice(0, topK).map(({ stored, score: value }) => ({
          id: stored.id,
          score: value,
          ...(body.includeValues === true ? { values: stored.values } : {}),
          ...(body.includeMetadata === true && stored.metadata ? { metadata: stored.metadata } : {}),
        })),
        namespace: typeof body.namespace === 'string' ? body.namespace : '',
        usage: { readUnits: 1 },
      });
    }
    if (method === 'GET' && path === '/vectors/fetch') {
      const ids = query.ids ?? [];
      if (ids.length === 0) throw new BadRequest('ids are required');
      const space = namespaceOf(query.namespace?.[0]);
      const vectors: Record<string, StoredVector> = {};
      for (const id of ids) {
        const stored = space.get(id);
        if (stored) vectors[id] = stored;
      }
      return json(200, { vectors, namespace: query.namespace?.[0] ?? '', usage: { readUnits: 1 } });
    }
    if (method === 'POST' && path === '/vectors/delete') {
      const space = namespaceOf(body.namespace);
      const modes = ['ids', 'filter', 'deleteAll'].filter((key) => body[key] !== undefined);
      if (modes.length !== 1) throw new BadRequest('give exactly one of ids, filter, deleteAll');
      if (body.deleteAll === true) space.clear();
      else if (body.ids !== undefined) {
        const ids = body.ids as string[];
        if (!Array.isArray(ids) || ids.length > LIMITS.deleteIds) throw new BadRequest(`ids must be an array of at most ${LIMITS.deleteIds}`);
        for (const id of ids) space.delete(id);
      } else {
        for (const [id, stored] of [...space]) if (evaluateFilter(body.filter, stored.metadata ?? {})) space.delete(id);
      }
      return json(200, {});
    }
    if (method === 'POST' && path === '/describe_index_stats') {
      const summary: Record<string, { vectorCount: number }> = {};
      let total = 0;
      for (const [name, space] of namespaces) {
        if (space.size === 0) continue;
        // API versions since 2025-04 report the default namespace as "__default__".
        summary[name === '' ? '__default__' : name] = { vectorCount: space.size };
        total += space.size;
      }
      return json(200, { namespaces: summary, dimension: options.dimension, indexFullness: 0, totalVectorCount: total, metric: options.metric, vectorType: 'dense' });
    }
    return json(404, { error: { code: 'NOT_FOUND', message: `no route ${method} ${path}` } });
  };

  const fetchApi = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    const rawBody = typeof init?.body === 'string' ? init.body : undefined;
    const body = rawBody === undefined ? {} : (JSON.parse(rawBody) as Record<string, unknown>);
    const query: Record<string, string[]> = {};
    url.searchParams.forEach((value, key) => (query[key] ??= []).push(value));
    requests.push({ method, path: url.pathname, query, body: rawBody === undefined ? undefined : body, headers });
    if (!headers['api-key']) return json(401, { error: { code: 'UNAUTHENTICATED', message: 'missing Api-Key header' } });
    if (rawBody !== undefined && Buffer.byteLength(rawBody) > LIMITS.upsertBytes) return json(400, { error: { code: 'INVALID_ARGUMENT', message: 'request larger than 2 MB' } });
    try {
      return handle(method, url.pathname, query, body);
    } catch (error) {
      if (error instanceof UndocumentedSemantics) throw error;
      if (error instanceof BadRequest) return json(400, { error: { code: 'INVALID_ARGUMENT', message: error.message }, code: 3, message: error.message });
      throw error;
    }
  };

  return { fetchApi, host, indexName, requests, namespaces };
}
