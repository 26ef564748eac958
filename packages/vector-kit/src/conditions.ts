import { isOperatorCondition, type FieldCondition, type FilterScalar, type RangeOperator } from '@zerda/types';

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
