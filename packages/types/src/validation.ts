import * as z from 'zod';
import { ZerdaError, describeValue, type ZerdaErrorCode } from './errors.js';

/** The received value at `path` inside `root`, for a message that names what was actually passed. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key as string];
  }
  return current;
}

function joinPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || 'value';
}

function expectationOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = String(issue.expected);
      const article = /^[aeiou]/.test(expected) ? 'an' : 'a';
      return `${article} ${expected}`;
    }
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `of length ${issue.inclusive === false ? '>' : '>='} ${String(issue.minimum)}`
        : `${issue.inclusive === false ? '>' : '>='} ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `of length ${issue.inclusive === false ? '<' : '<='} ${String(issue.maximum)}`
        : `${issue.inclusive === false ? '<' : '<='} ${String(issue.maximum)}`;
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return 'a known option (unknown keys are rejected so that typos do not pass silently)';
    case 'invalid_union':
      return issue.message && issue.message !== 'Invalid input' ? issue.message : 'one of the accepted types';
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    case 'invalid_format':
      return `a valid ${issue.format}`;
    case 'custom':
      return issue.message || 'valid';
    default:
      return issue.message || 'valid';
  }
}

/**
 * Converts a zod failure into a ZerdaError that names the field path, the received value's type and
 * the expectation, e.g. `chunk.text must be a string, got number 5`.
 */
export function toZerdaError(
  error: z.ZodError,
  input: unknown,
  field: string,
  code: ZerdaErrorCode = 'ZERDA_INVALID_ARGUMENT',
): ZerdaError {
  const issue = error.issues[0];
  if (!issue) return new ZerdaError(code, { field, expected: 'valid', received: describeValue(input) });
  let path = issue.path;
  let received = describeValue(valueAt(input, path));
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path, issue.keys[0] ?? ''];
    received = `unknown key "${issue.keys[0]}"`;
  }
  const fieldPath = joinPath(field, path);
  const expected = expectationOf(issue);
  const all = error.issues.map((i) => `${joinPath(field, i.path)}: ${i.message}`);
  return new ZerdaError(code, { field: fieldPath, expected, received, issues: all }, { cause: error });
}

/**
 * Parses `value` with `schema`; on failure throws a ZerdaError naming `field` (the name the caller
 * knows the value by). Returns the parsed value with zod's defaults applied.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  field: string,
  code: ZerdaErrorCode = 'ZERDA_INVALID_ARGUMENT',
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toZerdaError(result.error, value, field, code);
  return result.data;
}
