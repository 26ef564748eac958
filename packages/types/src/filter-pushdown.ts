import { invalidArgument } from './errors.js';
import { isOperatorCondition, parseMetadataFilter, type FieldCondition, type FilterScalar, type MetadataFilter } from './filter.js';

/**
 * Pushing a zerda filter down into a backend's MongoDB-like filter language (Chroma's `where`,
 * Pinecone's `filter`), for backends that have no `$not`: negations are moved to the leaves (De
 * Morgan), where every operator has a complement, and a part the backend cannot express keeps a
 * superset that `matchesFilter` checks afterwards. The backend says only how one field's
 * conditions become clauses ({@link FieldTranslator}); the recursion, the polarity and the
 * and/or simplification are here, once.
 */

/** A backend filter clause: a MongoDB-like object such as `{ field: { $in: [...] } }` or `{ $and: [...] }`. */
export type BackendClause = Record<string, unknown>;

/** Matches everything, nothing, or what a backend clause matches. */
export type PushdownNode = { kind: 'true' } | { kind: 'false' } | { kind: 'clause'; value: BackendClause };

/** A compiled part: its node, and whether it is exactly the zerda condition (false: a superset). */
export interface Pushed {
  node: PushdownNode;
  exact: boolean;
}

const TRUE: PushdownNode = { kind: 'true' };
const FALSE: PushdownNode = { kind: 'false' };

/** An exact part. */
export function exactly(node: PushdownNode): Pushed {
  return { node, exact: true };
}

/** Exactly everything (`true`) or exactly nothing (`false`). */
export function constant(matches: boolean): Pushed {
  return exactly(matches ? TRUE : FALSE);
}

/** Not expressible exactly: keep everything and let `matchesFilter` decide. */
export const SUPERSET: Pushed = { node: TRUE, exact: false };

/** The exact leaf `{ field: { operator: operand } }`. */
export function leaf(field: string, operator: string, operand: unknown): Pushed {
  if (typeof field !== 'string') throw invalidArgument('field', 'a backend field name (string)', field);
  if (typeof operator !== 'string' || !operator.startsWith('$')) throw invalidArgument('operator', 'a backend operator such as "$eq"', operator);
  return exactly({ kind: 'clause', value: { [field]: { [operator]: operand } } });
}

function checkParts(parts: unknown): asserts parts is readonly Pushed[] {
  if (!Array.isArray(parts)) throw invalidArgument('parts', 'an array of pushed-down parts', parts);
  parts.forEach((part: Pushed | null | undefined, index) => {
    const kind = part?.node?.kind;
    if (part === null || typeof part !== 'object' || typeof part.exact !== 'boolean' || (kind !== 'true' && kind !== 'false' && kind !== 'clause')) {
      throw invalidArgument(`parts[${index}]`, 'a pushed-down part ({ node, exact }, from leaf, exactly, constant or SUPERSET)', part);
    }
  });
}

function clausesOf(parts: readonly Pushed[]): BackendClause[] {
  return parts.flatMap((part) => (part.node.kind === 'clause' ? [part.node.value] : []));
}

/**
 * The conjunction of parts. FALSE absorbs it exactly, even from a superset (an empty superset
 * proves nothing matches); TRUE parts drop out; a single clause stands alone (`$and` needs two).
 */
export function allOf(parts: readonly Pushed[]): Pushed {
  checkParts(parts);
  if (parts.some((part) => part.node.kind === 'false')) return constant(false);
  const isExact = parts.every((part) => part.exact);
  const kept = clausesOf(parts);
  if (kept.length === 0) return { node: TRUE, exact: isExact };
  if (kept.length === 1) return { node: { kind: 'clause', value: kept[0]! }, exact: isExact };
  return { node: { kind: 'clause', value: { $and: kept } }, exact: isExact };
}

/**
 * The disjunction of parts. An exact TRUE absorbs it; a superset TRUE makes the whole a superset;
 * FALSE parts drop out; a single clause stands alone (`$or` needs two).
 */
export function anyOf(parts: readonly Pushed[]): Pushed {
  checkParts(parts);
  if (parts.some((part) => part.node.kind === 'true' && part.exact)) return constant(true);
  if (parts.some((part) => part.node.kind === 'true')) return SUPERSET;
  const isExact = parts.every((part) => part.exact);
  const kept = clausesOf(parts);
  if (kept.length === 0) return constant(false);
  if (kept.length === 1) return { node: { kind: 'clause', value: kept[0]! }, exact: isExact };
  return { node: { kind: 'clause', value: { $or: kept } }, exact: isExact };
}

/** The range operator that holds exactly when the given one does not (for a present number). */
export const NEGATED_RANGE = { $gt: '$lte', $gte: '$lt', $lt: '$gte', $lte: '$gt' } as const;
export type RangeOperator = keyof typeof NEGATED_RANGE;

/**
 * How one field's conditions become backend clauses, with a polarity (`negated`: the clause must
 * match exactly where the condition does not hold).
 */
export interface FieldTranslator {
  /** Equal to any of `values` (`null` also matching a missing field); negated: equal to none of them. */
  anyEquals(values: FilterScalar[], negated: boolean): Pushed;
  /** `field operator bound`; negated: its complement (including records without a comparable value). */
  compare(operator: RangeOperator, bound: number | string, negated: boolean): Pushed;
  /** The field is present (`expected` true) or absent. */
  present(expected: boolean): Pushed;
}

/** The result of {@link pushDownFilter}. */
export interface PushdownResult {
  /** The backend clause, or `undefined` for "everything". */
  clause: BackendClause | undefined;
  /** Nothing can match: skip the query. */
  matchesNothing: boolean;
  /** False when `clause` keeps a superset: check results with `matchesFilter`. */
  exact: boolean;
}

function pushCondition(field: FieldTranslator, value: FieldCondition, negated: boolean): Pushed {
  if (!isOperatorCondition(value)) return field.anyEquals([value], negated);
  const parts: Pushed[] = [];
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
        parts.push(constant(negated));
    }
  }
  // Several operators are ANDed; under negation, De Morgan makes that an OR.
  return negated ? anyOf(parts) : allOf(parts);
}

function push(filter: MetadataFilter, negated: boolean, fieldFor: (key: string) => FieldTranslator): Pushed {
  const parts: Pushed[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === '$and' || key === '$or') {
      const children = (value as MetadataFilter[]).map((child) => push(child, negated, fieldFor));
      parts.push((key === '$and') !== negated ? allOf(children) : anyOf(children));
    } else if (key === '$not') {
      parts.push(push(value as MetadataFilter, !negated, fieldFor));
    } else {
      parts.push(pushCondition(fieldFor(key), value as FieldCondition, negated));
    }
  }
  return negated ? anyOf(parts) : allOf(parts);
}

/**
 * Translates a validated zerda filter (see `parseMetadataFilter`) with `$not` pushed down to the
 * leaves. `fieldFor(key)` gives the translator of a field (`docId`, `source` or a metadata key).
 */
export function pushDownFilter(filter: MetadataFilter | undefined, fieldFor: (key: string) => FieldTranslator): PushdownResult {
  if (typeof fieldFor !== 'function') throw invalidArgument('fieldFor', 'a function (key) => FieldTranslator', fieldFor);
  if (filter === undefined) return { clause: undefined, matchesNothing: false, exact: true };
  const { node, exact } = push(parseMetadataFilter(filter), false, fieldFor);
  if (node.kind === 'false') return { clause: undefined, matchesNothing: true, exact: true };
  return { clause: node.kind === 'clause' ? node.value : undefined, matchesNothing: false, exact };
}
