import { ZerdaError } from '@zerda/types';

/** Why a document could not be read (`details.kind` of its `ZERDA_DOCUMENT_UNREADABLE` error). */
export type UnreadableKind = 'io' | 'encrypted' | 'corrupt' | 'empty' | 'encoding' | 'too_large' | 'binary' | 'crashed';

/** The limits a document can exceed (`details.limit` of a `ZERDA_DOCUMENT_LIMIT` error). */
export type DocumentLimitName = 'timeMs' | 'memoryMb' | 'maxInflatedBytes' | 'maxZipEntries' | 'maxPdfStreamBytes' | 'maxYamlAliases' | 'nesting';

/** A `ZERDA_DOCUMENT_UNREADABLE` error naming the file, the format, the kind of failure and the reason. */
export function unreadable(file: string, format: string, kind: UnreadableKind, reason: string, cause?: unknown): ZerdaError {
  return new ZerdaError('ZERDA_DOCUMENT_UNREADABLE', { file, format, kind, reason }, cause === undefined ? {} : { cause });
}

/** A `ZERDA_DOCUMENT_LIMIT` error: the document was refused because reading it would exceed `limit` (set to `value`). */
export function limitExceeded(file: string, format: string, limit: DocumentLimitName, value: number | undefined, reason: string): ZerdaError {
  return new ZerdaError('ZERDA_DOCUMENT_LIMIT', { file, format, limit, ...(value === undefined ? {} : { value }), reason });
}

/** True for the error V8 throws when a parser recurses too deeply. */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/** A `ZERDA_UNSUPPORTED_FORMAT` error naming the file, what it looked like and what is supported. */
export function unsupported(file: string, format: string | undefined, supported: string): ZerdaError {
  return new ZerdaError('ZERDA_UNSUPPORTED_FORMAT', { file, ...(format ? { format } : {}), expected: supported });
}

/** The message of anything thrown, for a failure reason. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
