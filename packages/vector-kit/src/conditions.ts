import { SUPERSET, constant, invalidArgument, isOperatorCondition, leaf, type FieldCondition, type FieldTranslator, type FilterScalar, type MetadataFilter, type RangeOperator } from '@zerda/types';

/**
 * How one field's conditions become a backend's filter parts (`T`: SQL text, a compiled filter
 * object …), for a backend whose language has negation (SQL). Backends without `$not` push
 * negations down with `pushDownFilter` of `@zerda/types` instead.
 */
export interface ConditionCompiler<T> {
  /** Equal to `value` (`null` also matching a missing field), with the any-element rule for arrays. */
  equals(value: FilterScalar): T;
  /** Equal to any of `values`. */
  anyEquals(values: FilterScalar[]): T;
  /** `field operator bound` (numbers with numbers, strings with strings). */
  compare(operator: RangeOperator, bound: number | string): T;
  /** The field is present (`expected` true) or absent. */
  present(expected: boolean): T;
  /** Holds exactly where `part` does not. */
  not(part: T): T;
  /** The conjunction of parts (of none: everything). */
  allOf(parts: T[]): T;
  /** Matches nothing (an unknown operator, as in `matchesFilter`). */
  nothing: T;
}

/**
 * One field's condition — a scalar (equality shorthand) or an operator object — compiled with a
 * backend's {@link ConditionCompiler}: `$eq`, `$ne`, `$in`, `$nin`, the ranges and `$exists`,
 * several operators ANDed, `undefined` operands skipped. The one operator switch every SQL-like
 * adapter uses, so that they read a filter alike.
 */
export function compileCondition<T>(condition: FieldCondition, field: ConditionCompiler<T>): T {
  if (!isOperatorCondition(condition)) return field.equals(condition);
  const parts: T[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    switch (operator) {
      case '$eq':
      case '$ne': {
        const equal = field.equals(operand as FilterScalar);
        parts.push(operator === '$eq' ? equal : field.not(equal));
        break;
      }
      case '$in':
      case '$nin': {
        const any = field.anyEquals(operand as FilterScalar[]);
        parts.push(operator === '$in' ? any : field.not(any));
        break;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        parts.push(field.compare(operator, operand as number | string));
        break;
      case '$exists':
        parts.push(field.present(operand as boolean));
        break;
      default:
        // A validated filter has no other operator; an unknown one matches nothing, as in matchesFilter.
        parts.push(field.nothing);
    }
  }
  return field.allOf(parts);
}

/** How a whole filter becomes a backend's expression (`T`), for a language with negation (SQL). */
export interface FilterCompiler<T> {
  /** The conjunction of parts (of none: everything). */
  allOf(parts: T[]): T;
  /** The disjunction of parts (of none: nothing). */
  anyOf(parts: T[]): T;
  /** Holds exactly where `part` does not. */
  not(part: T): T;
  /** The compiler of conditions on `key` (`docId`, `source` or a metadata key). */
  field(key: string): ConditionCompiler<T>;
}

/**
 * A validated filter compiled with a backend's {@link FilterCompiler}: `$and`, `$or` and `$not`
 * become its logic, every field's condition goes through {@link compileCondition}, the entries of
 * one object are ANDed and `undefined` entries skipped. The one walk over a filter's logic that the
 * SQL adapters (LanceDB, pgvector) share. Recursive: validate first (`parseMetadataFilter` bounds
 * the depth).
 */
export function compileFilterTree<T>(filter: MetadataFilter, compiler: FilterCompiler<T>): T {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw invalidArgument('filter', 'a metadata filter object (validated by parseMetadataFilter)', filter);
  if (compiler === null || typeof compiler !== 'object') throw invalidArgument('compiler', 'a FilterCompiler object', compiler);
  for (const method of ['allOf', 'anyOf', 'not', 'field'] as const) {
    if (typeof compiler[method] !== 'function') throw invalidArgument(`compiler.${method}`, 'a function', compiler[method]);
  }
  return compileTree(filter, compiler);
}

function compileTree<T>(filter: MetadataFilter, compiler: FilterCompiler<T>): T {
  const parts: T[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$and') parts.push(compiler.allOf((condition as MetadataFilter[]).map((node) => compileTree(node, compiler))));
    else if (key === '$or') parts.push(compiler.anyOf((condition as MetadataFilter[]).map((node) => compileTree(node, compiler))));
    else if (key === '$not') parts.push(compiler.not(compileTree(condition as MetadataFilter, compiler)));
    else parts.push(compileCondition(condition as FieldCondition, compiler.field(key)));
  }
  return compiler.allOf(parts);
}

/**
 * The {@link FieldTranslator} (for `pushDownFilter` of `@zerda/types`) of a string field every
 * record has — `docId`, `source` — stored as `field` in a backend with MongoDB-style operators and
 * no `$not` (Chroma, Pinecone): equality and `$in` with their negations `$ne`/`$nin`; a non-string
 * never equals it; a range with a string bound keeps a superset (such backends compare numbers
 * only; the caller checks the results with `matchesFilter`), with a number bound it never holds;
 * the field is always present. `storable` says which strings the backend can hold at all (default:
 * any): a value it cannot hold equals no stored value.
 */
export function stringFieldTranslator(field: string, storable: (value: string) => boolean = () => true): FieldTranslator {
  if (typeof field !== 'string' || field.length === 0) throw invalidArgument('field', 'the non-empty name the backend stores the field under', field);
  if (typeof storable !== 'function') throw invalidArgument('storable', 'a function (value: string) => boolean', storable);
  return {
    anyEquals(values, negated) {
      const strings = [...new Set(values.filter((value): value is string => typeof value === 'string' && storable(value)))];
      if (strings.length === 0) return constant(negated);
      if (strings.length === 1) return leaf(field, negated ? '$ne' : '$eq', strings[0]);
      return leaf(field, negated ? '$nin' : '$in', strings);
    },
    compare(_operator, bound, negated) {
      if (typeof bound !== 'string') return constant(negated);
      return SUPERSET;
    },
    present: (expected) => constant(expected),
  };
}
