import { invalidArgument } from '@zerda/types';

/**
 * Throws a ZerdaError naming `field` unless `value` is a string. Every public entry point of this
 * package calls it first, so a wrong type never reaches a regex or a loop and fails obscurely.
 */
export function requireString(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string') throw invalidArgument(field, 'a string', value);
}

/** Throws a ZerdaError naming `field` unless `value` is a boolean or undefined. */
export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw invalidArgument(field, 'a boolean', value);
}

/** Throws a ZerdaError naming `field` unless `value` is a plain object or undefined. */
export function optionalObject(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw invalidArgument(field, 'an object', value);
}

/** Throws a ZerdaError naming `field` unless `value` is one of `allowed` (or undefined). */
export function optionalEnum<T extends string>(value: unknown, allowed: readonly T[], field: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalidArgument(field, `one of ${allowed.map((entry) => `"${entry}"`).join(', ')}`, value);
}

/** Rejects keys that `allowed` does not list, so a typo in an option name fails loudly instead of being ignored. */
export function rejectUnknownKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalidArgument(`${field}.${key}`, `absent (known options: ${allowed.join(', ')})`, value[key]);
  }
}
