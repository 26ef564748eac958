import * as z from 'zod';
import type { JsonValue, Metadata } from './json.js';
import { FILTER_LIMITS, assertStructureLimits } from './bounds.js';
import { ZerdaError, describeValue, invalidArgument } from './errors.js';
import { parseOrThrow } from './validation.js';

/**
 * The one metadata-filter language every zerda package understands (MongoDB-like):
 *
 * ```ts
 * { lang: 'ar' }                                   // equality shorthand
 * { year: { $gte: 2020, $lt: 2025 } }              // range
 * { tag: { $in: ['faq', 'docs'] }, draft: { $ne: true } }
 * { $or: [{ source: 'wiki' }, { score: { $gt: 0.5 } }] }
 * { $not: { lang: 'en' } }
 * { author: { $exists: true } }
 * ```
 *
 * Semantics (the same in every backend):
 * - A key names a metadata field, except `docId` and `source`, which always name the chunk's own fields.
 * - Several keys in one object, and several operators on one field, must all hold (AND).
 * - `$eq`/`$ne`/`$in`/`$nin` compare scalars with `===` (no type coercion: `1` does not equal `"1"`).
 *   When the stored value is an array, `$eq`/`$in` hold if any element matches, `$ne`/`$nin` if none does.
 * - `$gt`/`$gte`/`$lt`/`$lte` hold only when both sides are numbers, or both are strings (compared by code unit).
 * - A missing field: `$eq: null` holds, `$ne` and `$nin` hold, `$exists: false` holds, everything else fails.
 * - `$and`/`$or` take a non-empty list of filters; `$not` takes a filter and negates it.
 */
export type FilterScalar = string | number | boolean | null;

export interface FieldOperators {
  $eq?: FilterScalar;
  $ne?: FilterScalar;
  $gt?: number | string;
  $gte?: number | string;
  $lt?: number | string;
  $lte?: number | string;
  $in?: FilterScalar[];
  $nin?: FilterScalar[];
  $exists?: boolean;
}

export type FieldCondition = FilterScalar | FieldOperators;

export type MetadataFilter = {
  $and?: MetadataFilter[];
  $or?: MetadataFilter[];
  $not?: MetadataFilter;
} & { [field: string]: FieldCondition | MetadataFilter[] | MetadataFilter | undefined };

export const FIELD_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'] as const;
export const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;

const scalarSchema = z.union([z.string(), z.number().refine(Number.isFinite, 'must be finite'), z.boolean(), z.null()]);
const orderedSchema = z.union([z.string(), z.number().refine(Number.isFinite, 'must be finite')]);

const fieldOperatorsSchema = z
  .strictObject({
    $eq: scalarSchema.optional(),
    $ne: scalarSchema.optional(),
    $gt: orderedSchema.optional(),
    $gte: orderedSchema.optional(),
    $lt: orderedSchema.optional(),
    $lte: orderedSchema.optional(),
    $in: z.array(scalarSchema).optional(),
    $nin: z.array(scalarSchema).optional(),
    $exists: z.boolean().optional(),
  })
  .refine((ops) => Object.keys(ops).length > 0, { message: 'an operator object needs at least one operator' });

const fieldConditionSchema = z.union([scalarSchema, fieldOperatorsSchema]);

/**
 * The key that would reach an object's prototype. A record schema silently drops `__proto__`, which
 * would turn `{ "__proto__": "x" }` (easy to produce with JSON.parse) into `{}` — a filter that matches
 * everything, so a tenant filter could be bypassed. They are rejected instead.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__']);

const plainObjectSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value),
  { message: 'an object' },
);

export const metadataFilterSchema: z.ZodType<MetadataFilter> = z.lazy(() =>
  plainObjectSchema.superRefine((filter, ctx) => {
    for (const key of Object.keys(filter)) {
      if (FORBIDDEN_KEYS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'a field name other than __proto__' });
    }
    for (const [key, value] of Object.entries(filter)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      if (key === '$and' || key === '$or') {
        const parsed = z.array(metadataFilterSchema).min(1).safeParse(value);
        if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
      } else if (key === '$not') {
        const parsed = metadataFilterSchema.safeParse(value);
        if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] } as never);
      } else if (key.startsWith('$')) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'a field name or one of the logical operators $and, $or, $not' });
      } else if (key.length === 0) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'field names must not be empty' });
      } else if (Array.isArray(value)) {
        // `{ tags: ['faq'] }` reads naturally but is not the language: say so, and name the operator meant.
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `a filter value (a string, finite number, boolean, null or an operator object); an array is not a filter value — to match any of several values write { ${JSON.stringify(key)}: { $in: [...] } }`,
        });
      } else {
        const parsed = fieldConditionSchema.safeParse(value);
        if (!parsed.success) {
          const operator = value && typeof value === 'object' ? Object.keys(value).find((k) => !(FIELD_OPERATORS as readonly string[]).includes(k)) : undefined;
          ctx.addIssue({
            code: 'custom',
            path: operator ? [key, operator] : [key],
            message: operator
              ? `a known operator (one of ${FIELD_OPERATORS.join(', ')})`
              : 'a string, finite number, boolean, null, or an operator object with valid operands',
          });
        }
      }
    }
  }) as unknown as z.ZodType<MetadataFilter>,
);

/**
 * Validates a filter (throws a ZerdaError with code ZERDA_INVALID_FILTER naming the offending path).
 * A filter nested deeper than {@link FILTER_LIMITS} (64 levels; an `$and`/`$or` level takes two) or
 * holding more than 100,000 values is refused before anything recurses into it.
 */
export function parseMetadataFilter(filter: unknown, field = 'filter'): MetadataFilter {
  assertStructureLimits(filter, field, FILTER_LIMITS, 'ZERDA_INVALID_FILTER', 'a filter');
  return parseOrThrow(metadataFilterSchema, filter, field, 'ZERDA_INVALID_FILTER');
}

/** What a filter is evaluated against: the chunk's metadata plus its `docId` and `source`. */
/**
 * A filter that holds when every given filter holds (`undefined` and empty filters are skipped):
 * `undefined` for none, the filter itself for one, `{ $and: [...] }` otherwise. Bridges use it to
 * put a caller's filter inside an application's (a tenant's), which the caller can narrow but not widen.
 */
export function andFilters(...filters: Array<MetadataFilter | undefined>): MetadataFilter | undefined {
  const kept = filters.filter((filter): filter is MetadataFilter => filter !== undefined && filter !== null && Object.keys(filter).length > 0);
  if (kept.length === 0) return undefined;
  if (kept.length === 1) return kept[0];
  return { $and: kept };
}

export interface FilterTarget {
  metadata: Metadata;
  docId?: string;
  source?: string;
}

/** True when a field condition is an operator object (`{ $gt: 3 }`) rather than a bare value to equal. */
export function isOperatorCondition(condition: unknown): condition is FieldOperators {
  return typeof condition === 'object' && condition !== null && !Array.isArray(condition);
}

/** True for the values a filter compares: a string, a number, a boolean or `null`. */
export function isFilterScalar(value: unknown): value is FilterScalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The term saying `key` is present (whatever its value, `null` included); see {@link metadataTerms}. */
export function presenceTerm(key: string): string {
  if (typeof key !== 'string') throw invalidArgument('key', 'a metadata key (string)', key);
  return JSON.stringify([key]);
}

/** The term saying `key` holds `value`, or an array with `value` among its top-level elements; see {@link metadataTerms}. */
export function valueTerm(key: string, value: FilterScalar): string {
  if (typeof key !== 'string') throw invalidArgument('key', 'a metadata key (string)', key);
  if (!isFilterScalar(value)) throw invalidArgument('value', 'a string, number, boolean or null', value);
  return JSON.stringify([key, value]);
}

/**
 * The metadata of a chunk as flat strings, for backends whose filters test whether a list holds a
 * string (LanceDB `array_has`, Pinecone `$in` on a list field): a {@link presenceTerm} per key and a
 * {@link valueTerm} per scalar value, or per distinct scalar element of an array — exactly what
 * `matchesFilter` compares for equality, `$in`/`$nin` and `$exists`. Keys in metadata order.
 */
export function metadataTerms(metadata: Metadata): string[] {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw invalidArgument('metadata', 'a metadata object', metadata);
  const terms: string[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    terms.push(presenceTerm(key));
    if (isFilterScalar(value)) terms.push(valueTerm(key, value));
    else if (Array.isArray(value)) terms.push(...new Set(value.filter(isFilterScalar).map((element) => valueTerm(key, element))));
  }
  return terms;
}

function scalarEquals(stored: JsonValue | undefined, expected: FilterScalar): boolean {
  if (stored === undefined) return expected === null;
  if (Array.isArray(stored)) return stored.some((item) => item === expected);
  return stored === expected;
}

function compare(stored: JsonValue | undefined, bound: number | string, test: (order: number) => boolean): boolean {
  if (typeof stored === 'number' && typeof bound === 'number') return test(stored - bound);
  if (typeof stored === 'string' && typeof bound === 'string') return test(stored < bound ? -1 : stored > bound ? 1 : 0);
  return false;
}

function matchesField(stored: JsonValue | undefined, condition: FieldCondition): boolean {
  if (!isOperatorCondition(condition)) return scalarEquals(stored, condition);
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    let ok: boolean;
    switch (operator) {
      case '$eq':
        ok = scalarEquals(stored, operand as FilterScalar);
        break;
      case '$ne':
        ok = !scalarEquals(stored, operand as FilterScalar);
        break;
      case '$gt':
        ok = compare(stored, operand as number | string, (o) => o > 0);
        break;
      case '$gte':
        ok = compare(stored, operand as number | string, (o) => o >= 0);
        break;
      case '$lt':
        ok = compare(stored, operand as number | string, (o) => o < 0);
        break;
      case '$lte':
        ok = compare(stored, operand as number | string, (o) => o <= 0);
        break;
      case '$in':
        if (!Array.isArray(operand)) throw malformedFilter('an array of values under $in', operand);
        ok = operand.some((value) => scalarEquals(stored, value as FilterScalar));
        break;
      case '$nin':
        if (!Array.isArray(operand)) throw malformedFilter('an array of values under $nin', operand);
        ok = !operand.some((value) => scalarEquals(stored, value as FilterScalar));
        break;
      case '$exists':
        ok = (stored !== undefined) === operand;
        break;
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

/**
 * The reference evaluator of the filter language. Every backend that cannot translate a filter
 * natively uses this, so that all of them agree. Assumes a validated filter (see {@link parseMetadataFilter}).
 */
export function matchesFilter(target: FilterTarget | Metadata, filter: MetadataFilter | undefined): boolean {
  if (!filter) return true;
  const isTarget = typeof (target as FilterTarget).metadata === 'object' && (target as FilterTarget).metadata !== null && !Array.isArray((target as FilterTarget).metadata);
  const metadata = isTarget ? (target as FilterTarget).metadata : (target as Metadata);
  return matchesAt(target, isTarget, metadata, filter, 1);
}

/** An unvalidated filter of the wrong shape reached the evaluator. */
function malformedFilter(expected: string, received: unknown): ZerdaError {
  return new ZerdaError('ZERDA_INVALID_FILTER', { field: 'filter', expected: `${expected} (validate filters with parseMetadataFilter)`, received: describeValue(received) });
}

function matchesAt(target: FilterTarget | Metadata, isTarget: boolean, metadata: Metadata, filter: MetadataFilter, depth: number): boolean {
  // A validated filter is at most FILTER_LIMITS.maxDepth deep; an unvalidated one handed straight to
  // matchesFilter must fail with an error, not overflow the stack. (Logical levels use two each.)
  if (depth > FILTER_LIMITS.maxDepth) {
    throw new ZerdaError('ZERDA_INVALID_FILTER', {
      field: 'filter',
      expected: `a filter nested at most ${FILTER_LIMITS.maxDepth} levels deep (validate it with parseMetadataFilter)`,
      received: `a filter nested more than ${FILTER_LIMITS.maxDepth} levels deep (or a cycle)`,
    });
  }
  // The same for shapes an unvalidated filter can have: a clear error instead of a TypeError.
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw malformedFilter('a filter object', filter);
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if ((key === '$and' || key === '$or') && !Array.isArray(condition)) throw malformedFilter(`an array of filters under ${key}`, condition);
    if (key === '$and') {
      if (!(condition as MetadataFilter[]).every((sub) => matchesAt(target, isTarget, metadata, sub, depth + 2))) return false;
    } else if (key === '$or') {
      if (!(condition as MetadataFilter[]).some((sub) => matchesAt(target, isTarget, metadata, sub, depth + 2))) return false;
    } else if (key === '$not') {
      if (matchesAt(target, isTarget, metadata, condition as MetadataFilter, depth + 1)) return false;
    } else {
      let stored: JsonValue | undefined;
      if (isTarget && key === 'docId') stored = (target as FilterTarget).docId;
      else if (isTarget && key === 'source') stored = (target as FilterTarget).source;
      else stored = Object.prototype.hasOwnProperty.call(metadata, key) ? metadata[key] : undefined;
      if (!matchesField(stored, condition as FieldCondition)) return false;
    }
  }
  return true;
}

/**
 * A canonical string for a filter: keys sorted at every level, so `{a:1,b:2}` and `{b:2,a:1}` give
 * the same string. Used for cache keys.
 */
export function canonicalFilterKey(filter: MetadataFilter | undefined): string {
  if (!filter) return '';
  assertStructureLimits(filter, 'filter', FILTER_LIMITS, 'ZERDA_INVALID_FILTER', 'a filter');
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return JSON.stringify(canonical(filter));
}
