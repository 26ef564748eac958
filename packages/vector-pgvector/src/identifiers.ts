import { createHash } from 'node:crypto';
import { invalidArgument } from '@zerda/types';

/**
 * The names this package accepts for schemas, tables (collections) and columns: lowercase ASCII
 * letters, digits and underscores, not starting with a digit, at most 63 characters (PostgreSQL's
 * identifier limit). Anything else is refused, so a name can be quoted into SQL safely.
 */
export const IDENTIFIER_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks a schema, table or column name against {@link IDENTIFIER_PATTERN}; throws a ZerdaError naming `field`. */
export function checkIdentifier(value: unknown, field: string): string {
  if (typeof value !== 'string' || !IDENTIFIER_PATTERN.test(value)) {
    throw invalidArgument(field, `a name matching ${String(IDENTIFIER_PATTERN)} (lowercase letters, digits and _, at most 63 characters)`, value);
  }
  return value;
}

/** Double-quotes an identifier that already passed {@link checkIdentifier}. */
export function quoteIdentifier(name: string): string {
  return `"${checkIdentifier(name, 'identifier')}"`;
}

/**
 * A derived object name (index, lock key …) for `table`: `${table}_${suffix}` when that fits in 63
 * characters, otherwise a shortened table name plus a hash, so two long tables never share an
 * index name after PostgreSQL's silent truncation.
 */
export function derivedName(table: string, suffix: string): string {
  const plain = `${table}_${suffix}`;
  if (plain.length <= 63) return plain;
  const hash = createHash('sha256').update(table).digest('hex').slice(0, 8);
  return `${table.slice(0, 63 - suffix.length - hash.length - 2)}_${hash}_${suffix}`;
}
