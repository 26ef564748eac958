/**
 * The worker thread that parses documents for `DocumentStream` (see `isolated-parser.ts`): one
 * request at a time, each answered with the documents or the `ZerdaError`, as plain data.
 */
import { parentPort } from 'node:worker_threads';
import { ZerdaError } from '@zerda/types';
import { unreadable, messageOf } from './errors.js';
import { loadParser, parseDocument, type ParseSettings } from './parse.js';
import type { DocumentFormat } from './types.js';
import { errorToWire, type WireResult } from './wire.js';

interface ParseRequest {
  id: number;
  format: DocumentFormat;
  bytes: Uint8Array;
  file: string;
  settings: ParseSettings;
}

const port = parentPort;
if (port) {
  port.on('message', (request: ParseRequest) => {
    loadParser(request.format)
      .then(() => {
        // The time limit starts now: loading a parser the first time is not the document's cost.
        port.postMessage({ id: request.id, started: true } satisfies WireResult);
        return parseDocument(request.format, request.bytes, request.file, request.settings);
      })
      .then(
      (result) => {
        const message: WireResult = { id: request.id, ok: true, documents: result.documents, failures: result.failures.map((failure) => ({ record: failure.record, error: errorToWire(failure.error) })) };
        port.postMessage(message);
      },
      (error: unknown) => {
        const zerdaError = ZerdaError.isInstance(error) ? error : unreadable(request.file, request.format, 'corrupt', messageOf(error));
        const message: WireResult = { id: request.id, ok: false, error: errorToWire(zerdaError) };
        port.postMessage(message);
      },
    );
  });
}
