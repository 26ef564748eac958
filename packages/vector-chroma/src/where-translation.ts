import type { FieldCondition, FieldOperators, FilterScalar, MetadataFilter } from '@zerda/types';
import { DOC_ID_KEY, SOURCE_KEY, isNumberKey, numberKey, presenceKey, valueKey } from './record-mapping.js';

/** A Chroma `where` clause. */
export type ChromaWhere = Record<string, unknown>;

/**
 * A translated filter: the `where` (or `undefined` for "everything"), whether it matches nothing
 * at all, and whether it is exactly the zerda filter. When `exact` is false the `where` keeps a
 * superset and results must be checked with `matchesFilter`.
 */
export interface TranslatedWhere {
  where: ChromaWhere | undefined;
  matchesNothing: boolean;
  exact: boolean;
}

type Node = { kind: 'true' } | { kind: 'false' } | { kind: 'where'; value: ChromaWhere };
interface Compiled {
  node: Node;
  exact: boolean;
}

const TRUE: Node = { kind: 'true' };
const FALSE: Node = { kind: 'false' };
/** Not expressible exactly: keep everything and let `matchesFilter` decide. */
const SUPERSET: Compiled = { node: TRUE, exact: false };

const exact = (node: Node): Compiled => ({ node, exact: true });
const clause = (key: string, operator: string, operand: unknown): Compiled => exact({ kind: 'where', value: { [key]: { [operator]: operand } } });
const clauses = (parts: Compiled[]): ChromaWhere[] => parts.flatMap((part) => (part.node.kind === 'where' ? [part.node.value] : []));

function combine(parts: Compiled[], conjunction: boolean): Compiled {
  const absorbing = conjunction ? 'false' : 'true';
  // FALSE absorbs a conjunction exactly (an empty superset proves nothing matches); an exact TRUE
  // absorbs a disjunction, a superset TRUE makes the disjunction a superset.
  if (parts.some((part) => part.node.kind === absorbing && (conjunction || part.exact))) return exact(conjunction ? FALSE : TRUE);
  const isExact = parts.every((part) => part.exact);
  if (!conjunction && parts.some((part) => part.node.kind === 'true')) return SUPERSET;
  const kept = clauses(parts);
  if (kept.length === 0) return { node: conjunction ? TRUE : FALSE, exact: conjunction ? isExact : true };
  // Chroma's $and/$or need at least two clauses.
  if (kept.length === 1) return { node: { kind: 'where', value: kept[0]! }, exact: isExact };
  return { node: { kind: 'where', value: { [conjunction ? '$and' : '$or']: kept } }, exact: isExact };
}

const NEGATED_RANGE = { $gt: '$lte', $gte: '$lt', $lt: '$gte', $lte: '$gt' } as const;
type RangeOperator = keyof typeof NEGATED_RANGE;

/** Conditions on one field with a polarity: Chroma has no `$not`, so negations go to the leaves. */
interface FieldCompiler {
  anyEquals(values: FilterScalar[], negated: boolean): Compiled;
  compare(operator: RangeOperator, bound: number | string, negated: boolean): Compiled;
  present(expected: boolean): Compiled;
}

function metadataField(key: string): FieldCompiler {
  return {
    anyEquals(values, negated) {
      if (values.length === 0) return exact(negated ? TRUE : FALSE);
      const keys = [...new Set(values.map((value) => valueKey(key, value)))];
      // `null` also matches a missing key.
      if (values.includes(null)) keys.push(presenceKey(key));
      const leaf = (term: string, isPresence: boolean) => clause(term, (isPresence ? !negated : negated) ? '$ne' : '$eq', true);
      const parts = keys.map((term) => leaf(term, term === presenceKey(key)));
      // Equal to any of the values: an OR of terms; under negation, equal to none: an AND.
      return combine(parts, negated);
    },
    compare(operator, bound, negated) {
      // Chroma's range operators take numbers only; zerda's string order is checked afterwards.
      if (typeof bound === 'string') return SUPERSET;
      // The number counts only while its `zq:` flag is true (a replaced chunk may leave a stale `zn:` value).
      const isNumber = clause(isNumberKey(key), '$eq', true);
      if (!negated) return combine([clause(numberKey(key), operator, bound), isNumber], true);
      // Not (x > b): x <= b, or no number stored under the key.
      return combine([combine([clause(numberKey(key), NEGATED_RANGE[operator], bound), isNumber], true), clause(isNumberKey(key), '$ne', true)], false);
    },
    present: (expected) => clause(presenceKey(key), expected ? '$eq' : '$ne', true),
  };
}

/** `docId`/`source`: a string every zerda record has. */
function chunkField(key: string): FieldCompiler {
  return {
    anyEquals(values, negated) {
      // A lone surrogate cannot be stored (Chroma speaks UTF-8), so it never equals a stored value.
      const strings = [...new Set(values.filter((value): value is string => typeof value === 'string' && !/\p{Cs}/u.test(value)))];
      if (strings.length === 0) return exact(negated ? TRUE : FALSE);
      if (strings.length === 1) return clause(key, negated ? '$ne' : '$eq', strings[0]);
      return clause(key, negated ? '$nin' : '$in', strings);
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
      case '$ne':
        parts.push(field.anyEquals([operand as FilterScalar], (operator === '$ne') !== negated));
        break;
      case '$in':
      case '$nin':
        parts.push(field.anyEquals(operand as FilterScalar[], (operator === '$nin') !== negated));
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
  return combine(parts, !negated);
}

function compile(filter: MetadataFilter, negated: boolean): Compiled {
  const parts: Compiled[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === '$and' || key === '$or') {
      parts.push(combine((value as MetadataFilter[]).map((child) => compile(child, negated)), (key === '$and') !== negated));
    } else if (key === '$not') {
      parts.push(compile(value as MetadataFilter, !negated));
    } else {
      const field = key === 'docId' ? chunkField(DOC_ID_KEY) : key === 'source' ? chunkField(SOURCE_KEY) : metadataField(key);
      parts.push(compileCondition(field, value as FieldCondition, negated));
    }
  }
  return combine(parts, !negated);
}

/**
 * Translates a validated zerda filter (see `parseMetadataFilter`) into a Chroma `where` over the
 * keys this package writes (see `record-mapping.ts`), with `$not` pushed down to the leaves.
 * Exact for everything except ranges with a string bound (Chroma compares numbers only): those
 * keep a superset and set `exact: false`.
 */
export function translateWhere(filter: MetadataFilter | undefined): TranslatedWhere {
  if (!filter) return { where: undefined, matchesNothing: false, exact: true };
  const { node, exact: isExact } = compile(filter, false);
  if (node.kind === 'false') return { where: undefined, matchesNothing: true, exact: true };
  return { where: node.kind === 'where' ? node.value : undefined, matchesNothing: false, exact: isExact };
}
