import type { FieldCondition, FieldOperators, FilterScalar, MetadataFilter } from '@zerda/types';
import { DOC_ID_FIELD, SOURCE_FIELD, TERMS_FIELD, numberField, presenceTerm, valueTerm } from './record-mapping.js';

/** A Pinecone metadata filter (the MongoDB-like syntax of Pinecone's query and delete requests). */
export type PineconeFilter = Record<string, unknown>;

/**
 * A translated filter: `filter` (or `undefined` for "everything"), whether it matches nothing at
 * all, and whether it is exactly the zerda filter. When `exact` is false the Pinecone filter
 * keeps a superset of the matching records and results must be checked with `matchesFilter`.
 */
export interface TranslatedFilter {
  filter: PineconeFilter | undefined;
  matchesNothing: boolean;
  exact: boolean;
}

type Node = { kind: 'true' } | { kind: 'false' } | { kind: 'filter'; value: PineconeFilter };
interface Compiled {
  node: Node;
  exact: boolean;
}

const TRUE: Node = { kind: 'true' };
const FALSE: Node = { kind: 'false' };

function exact(node: Node): Compiled {
  return { node, exact: true };
}

function condition(field: string, operator: string, operand: unknown): Compiled {
  return exact({ kind: 'filter', value: { [field]: { [operator]: operand } } });
}

function allOf(parts: Compiled[]): Compiled {
  // FALSE is always exact: a superset that is empty proves nothing matches.
  if (parts.some((part) => part.node.kind === 'false')) return exact(FALSE);
  const isExact = parts.every((part) => part.exact);
  const kept = parts.filter((part) => part.node.kind === 'filter').map((part) => (part.node as { value: PineconeFilter }).value);
  if (kept.length === 0) return { node: TRUE, exact: isExact };
  if (kept.length === 1) return { node: { kind: 'filter', value: kept[0]! }, exact: isExact };
  return { node: { kind: 'filter', value: { $and: kept } }, exact: isExact };
}

function anyOf(parts: Compiled[]): Compiled {
  if (parts.some((part) => part.node.kind === 'true' && part.exact)) return exact(TRUE);
  const isExact = parts.every((part) => part.exact);
  if (parts.some((part) => part.node.kind === 'true')) return { node: TRUE, exact: false };
  const kept = parts.filter((part) => part.node.kind === 'filter').map((part) => (part.node as { value: PineconeFilter }).value);
  if (kept.length === 0) return exact(FALSE);
  if (kept.length === 1) return { node: { kind: 'filter', value: kept[0]! }, exact: isExact };
  return { node: { kind: 'filter', value: { $or: kept } }, exact: isExact };
}

/** Not expressible exactly: keep everything and let `matchesFilter` decide. */
const SUPERSET: Compiled = { node: TRUE, exact: false };

const NEGATED_RANGE = { $gt: '$lte', $gte: '$lt', $lt: '$gte', $lte: '$gt' } as const;
type RangeOperator = keyof typeof NEGATED_RANGE;

/**
 * Conditions on one field, compiled with a polarity: Pinecone has no `$not`, so negations are
 * pushed down to the leaves, where each operator has an exact complement.
 */
interface FieldCompiler {
  anyEquals(values: FilterScalar[], negated: boolean): Compiled;
  compare(operator: RangeOperator, bound: number | string, negated: boolean): Compiled;
  present(expected: boolean): Compiled;
}

function metadataField(key: string): FieldCompiler {
  const presence = presenceTerm(key);
  return {
    anyEquals(values, negated) {
      if (values.length === 0) return exact(negated ? TRUE : FALSE);
      const terms = [...new Set(values.map((value) => valueTerm(key, value)))];
      // `null` also matches a missing key.
      const matchesMissing = values.includes(null);
      if (!negated) {
        const listed = condition(TERMS_FIELD, '$in', terms);
        return matchesMissing ? anyOf([listed, condition(TERMS_FIELD, '$nin', [presence])]) : listed;
      }
      const unlisted = condition(TERMS_FIELD, '$nin', terms);
      return matchesMissing ? allOf([unlisted, condition(TERMS_FIELD, '$in', [presence])]) : unlisted;
    },
    compare(operator, bound, negated) {
      // Pinecone's range operators compare numbers only; zerda's string order is checked afterwards.
      if (typeof bound === 'string') return SUPERSET;
      const field = numberField(key);
      if (!negated) return condition(field, operator, bound);
      // Not (x > b): x <= b, or no number stored under the key at all.
      return anyOf([condition(field, NEGATED_RANGE[operator], bound), condition(field, '$exists', false)]);
    },
    present: (expected) => condition(TERMS_FIELD, expected ? '$in' : '$nin', [presence]),
  };
}

/** `docId`/`source`: a string field every zerda record has. */
function chunkField(field: string): FieldCompiler {
  return {
    anyEquals(values, negated) {
      const strings = [...new Set(values.filter((value): value is string => typeof value === 'string'))];
      if (strings.length === 0) return exact(negated ? TRUE : FALSE);
      if (strings.length === 1) return condition(field, negated ? '$ne' : '$eq', strings[0]);
      return condition(field, negated ? '$nin' : '$in', strings);
    },
    compare(_operator, bound, negated) {
      if (typeof bound !== 'string') return exact(negated ? TRUE : FALSE);
      return SUPERSET;
    },
    present: (expected) => exact(expected ? TRUE : FALSE),
  };
}

function isOperatorObject(value: FieldCondition): value is FieldOperators {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compileCondition(field: FieldCompiler, value: FieldCondition, negated: boolean): Compiled {
  if (!isOperatorObject(value)) return field.anyEquals([value], negated);
  const parts: Compiled[] = [];
  for (const [operator, operand] of Object.entries(value)) {
    if (operand === undefined) continue;
    switch (operator) {
      case '$eq':
        parts.push(field.anyEquals([operand as FilterScalar], negated));
        break;
      case '$ne':
        parts.push(field.anyEquals([operand as FilterScalar], !negated));
        break;
      case '$in':
        parts.push(field.anyEquals(operand as FilterScalar[], negated));
        break;
      case '$nin':
        parts.push(field.anyEquals(operand as FilterScalar[], !negated));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        parts.push(field.compare(operator, operand as number | string, negated));
        break;
      case '$exists':
        parts.push(field.present((operand as boolean) !== negated));
        break;
      default:
        // A validated filter has no other operator; an unknown one matches nothing, as in matchesFilter.
        parts.push(exact(negated ? TRUE : FALSE));
    }
  }
  // Several operators are ANDed; under negation, De Morgan makes that an OR.
  return negated ? anyOf(parts) : allOf(parts);
}

function compile(filter: MetadataFilter, negated: boolean): Compiled {
  const parts: Compiled[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === '$and' || key === '$or') {
      const children = (value as MetadataFilter[]).map((child) => compile(child, negated));
      parts.push((key === '$and') !== negated ? allOf(children) : anyOf(children));
    } else if (key === '$not') {
      parts.push(compile(value as MetadataFilter, !negated));
    } else {
      const field = key === 'docId' ? chunkField(DOC_ID_FIELD) : key === 'source' ? chunkField(SOURCE_FIELD) : metadataField(key);
      parts.push(compileCondition(field, value as FieldCondition, negated));
    }
  }
  return negated ? anyOf(parts) : allOf(parts);
}

/**
 * Translates a validated zerda filter (see `parseMetadataFilter`) into Pinecone's filter syntax
 * over the fields this package writes (see `record-mapping.ts`), using only operators whose
 * Pinecone semantics are documented: `$eq $ne $gt $gte $lt $lte $in $nin $exists $and $or`.
 * `$not` is pushed down to the leaves (every leaf has an exact complement), and no part relies on
 * how Pinecone treats a missing field under `$ne`/`$nin`. Exact for everything except ranges with
 * a string bound, which Pinecone cannot compare: those keep a superset (`exact: false`).
 */
export function translateFilter(filter: MetadataFilter | undefined): TranslatedFilter {
  if (!filter) return { filter: undefined, matchesNothing: false, exact: true };
  const { node, exact: isExact } = compile(filter, false);
  if (node.kind === 'false') return { filter: undefined, matchesNothing: true, exact: true };
  return { filter: node.kind === 'filter' ? node.value : undefined, matchesNothing: false, exact: isExact };
}
