import { ERROR_MESSAGES, ZerdaError, describeValue, invalidArgument, type ErrorDetails } from '@zerda/types';

/**
 * A chunk as the legacy API saw it: any object with a string `text` (a `DocumentChunk` is one).
 * `docId` is what `validateChunk` additionally requires.
 */
export interface LegacyChunk {
  text: string;
  docId?: string;
}

/** The legacy unit of exchange: a chunk and its score (a similarity: higher is better). */
export type ScoredTuple<C extends LegacyChunk = LegacyChunk> = [chunk: C, score: number];

/** What the legacy classes accept: mutable or readonly tuples (they never modify them). */
export type TupleInput<C extends LegacyChunk = LegacyChunk> = readonly [chunk: C, score: number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * A ZerdaError for a value of the wrong type, with a `TypeError` carrying the same message as its
 * `cause`: code written for the Python API (`except TypeError`) ports to
 * `error.cause instanceof TypeError`, while zerda's own handling sees a ZerdaError like everywhere else.
 */
function typeError(field: string, expected: string, value: unknown): ZerdaError {
  const details: ErrorDetails = { field, expected, received: describeValue(value) };
  const message = ERROR_MESSAGES.ZERDA_INVALID_ARGUMENT(details);
  return new ZerdaError('ZERDA_INVALID_ARGUMENT', details, { cause: new TypeError(message), message });
}

/**
 * Checks a chunk before it enters the legacy tuple pipeline, so a malformed chunk fails early and
 * clearly instead of deep inside ranking or composition: it must be an object whose `text` and
 * `docId` are strings. Returns nothing; throws a ZerdaError (code `ZERDA_INVALID_ARGUMENT`, `cause` a
 * `TypeError`) naming the field, e.g. `chunk.text must be a string, got number 123`.
 */
export function validateChunk(chunk: unknown): asserts chunk is LegacyChunk & { docId: string } {
  if (!isObject(chunk)) throw typeError('chunk', 'an object with string text and docId', chunk);
  if (typeof chunk.text !== 'string') throw typeError('chunk.text', 'a string', chunk.text);
  if (typeof chunk.docId !== 'string') throw typeError('chunk.docId', 'a string', chunk.docId);
}

/** Checks that `chunks` is a list of `[chunk, score]` tuples whose chunks have string text. */
export function checkTuples<C extends LegacyChunk>(chunks: unknown, options: { scores?: boolean } = {}): asserts chunks is TupleInput<C>[] {
  if (!Array.isArray(chunks)) throw invalidArgument('chunks', 'an array of [chunk, score] tuples', chunks);
  chunks.forEach((entry: unknown, index) => {
    if (!Array.isArray(entry) || entry.length < 2) throw invalidArgument(`chunks[${index}]`, 'a [chunk, score] tuple', entry);
    const [chunk, score] = entry as unknown[];
    if (!isObject(chunk)) throw typeError(`chunks[${index}][0]`, 'a chunk object', chunk);
    if (typeof chunk.text !== 'string') throw typeError(`chunks[${index}][0].text`, 'a string', chunk.text);
    if (options.scores && (typeof score !== 'number' || Number.isNaN(score))) {
      throw typeError(`chunks[${index}][1]`, 'a number (the score)', score);
    }
  });
}
