import { ZerdaError, type ErrorDetails, type ZerdaErrorCode } from '@zerda/types';
import type { RecordResult } from './parsers/records.js';

/** A ZerdaError as plain data, to cross a worker boundary (structured clone keeps no class). */
export interface WireError {
  code: ZerdaErrorCode;
  details: ErrorDetails;
  message: string;
}

/** What the parse worker sends back for one document. */
export type WireResult =
  | { id: number; started: true }
  | { id: number; ok: true; documents: RecordResult['documents']; failures: Array<{ record: string; error: WireError }> }
  | { id: number; ok: false; error: WireError };

/** A ZerdaError as plain data. */
export function errorToWire(error: ZerdaError): WireError {
  return { code: error.code, details: error.details, message: error.message };
}

/** The ZerdaError plain data describes. */
export function errorFromWire(wire: WireError): ZerdaError {
  return new ZerdaError(wire.code, wire.details, { message: wire.message });
}
