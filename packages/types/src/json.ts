import { z } from 'zod';

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

export const metadataSchema = z.record(z.string(), jsonValueSchema);
