import { ZerdaError, type ZerdaErrorCode } from './errors.js';

/**
 * Limits of a JSON-like value handed to a public entry point (a metadata filter, chunk
 * metadata). Validating and evaluating such values recurses once per nesting level, so a value
 * nested a few thousand levels deep (a few kilobytes of JSON) would overflow the call stack, and
 * a huge one would make every candidate's check slow; both are refused up front with a clear error.
 */
export interface StructureLimits {
  /** Deepest nesting allowed; every object and every array counts one level. */
  maxDepth: number;
  /** Most values allowed in total (objects, arrays and scalars, the root included). */
  maxNodes: number;
}

/**
 * The limits of a metadata filter: 64 levels (an `$and`/`$or` level takes two, its array and the
 * filter inside it; `$not` and an operator object take one) and 100,000 values, far beyond any
 * real filter (a tenant filter with a `$in` of 50,000 document ids still fits).
 */
export const FILTER_LIMITS: Readonly<StructureLimits> = Object.freeze({ maxDepth: 64, maxNodes: 100_000 });

/** The limits of one chunk's metadata: 64 levels and 100,000 values. */
export const METADATA_LIMITS: Readonly<StructureLimits> = Object.freeze({ maxDepth: 64, maxNodes: 100_000 });

function isWalkable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !(value instanceof ArrayBuffer);
}

/**
 * Checks that `value` is nested at most `limits.maxDepth` levels deep and holds at most
 * `limits.maxNodes` values, walking it iteratively (own enumerable keys of objects, elements of
 * arrays), so that no input can overflow the stack here — and the recursive validation and
 * evaluation that run after this check stay bounded too. A cycle is reported as too deep. Errors
 * thrown by the caller's own getters propagate unchanged.
 *
 * @throws ZerdaError with `code`, naming `field`, when a limit is exceeded.
 */
export function assertStructureLimits(value: unknown, field: string, limits: StructureLimits, code: ZerdaErrorCode = 'ZERDA_INVALID_ARGUMENT', what = 'a value'): void {
  if (!isWalkable(value)) return;
  let nodes = 1;
  const fail = (received: string, expected: string): ZerdaError => new ZerdaError(code, { field, expected, received, limits: { ...limits } });
  const stack: Array<{ node: object; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const children: unknown[] = Array.isArray(node) ? node : Object.keys(node).map((key) => (node as Record<string, unknown>)[key]);
    nodes += children.length;
    if (nodes > limits.maxNodes) throw fail(`more than ${limits.maxNodes} values`, `${what} of at most ${limits.maxNodes} values`);
    for (const child of children) {
      if (!isWalkable(child)) continue;
      if (depth >= limits.maxDepth) {
        throw fail(`a value nested more than ${limits.maxDepth} levels deep (or a cycle)`, `${what} nested at most ${limits.maxDepth} levels deep (every object and array counts one level)`);
      }
      stack.push({ node: child, depth: depth + 1 });
    }
  }
}
