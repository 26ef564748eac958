import * as z from 'zod';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
/** Chunk metadata: a JSON-safe record, so that every backend can store and filter it. */
export type Metadata = Record<string, JsonValue>;

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union(
    [
    z.string(),
    z.number().refine(Number.isFinite, { message: 'numbers in metadata must be finite' }),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
    ],
    { error: 'a JSON value (string, finite number, boolean, null, array or object)' },
  ),
);

const PROTOTYPE_KEYS = new Set(['__proto__']);

/**
 * Metadata: a record of JSON values. The key `__proto__` is refused rather than
 * silently dropped (a record schema drops `__proto__`), so no metadata is ever lost without an error.
 */
export const metadataSchema = z
  .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { message: 'an object' })
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'a key other than __proto__' });
    }
  })
  .pipe(z.record(z.string(), jsonValueSchema));
