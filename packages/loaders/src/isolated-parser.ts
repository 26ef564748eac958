import { Worker } from 'node:worker_threads';
import { limitExceeded, unreadable } from './errors.js';
import type { ParseSettings } from './parse.js';
import type { RecordResult } from './parsers/records.js';
import type { DocumentFormat } from './types.js';
import { errorFromWire, type WireResult } from './wire.js';

interface Pending {
  id: number;
  worker: Worker;
  file: string;
  format: DocumentFormat;
  timer: NodeJS.Timeout;
  /** Starts the document's own time limit (a new timer). */
  restart(): NodeJS.Timeout;
  resolve(result: RecordResult): void;
  reject(error: unknown): void;
}

/** The compiled worker script (from the sources under test, the built one beside them). */
function workerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../dist/parse-worker.js', here) : new URL('./parse-worker.js', here);
}

// Time allowed to start a worker and load a parser before a document's own time limit starts.
const STARTUP_MS = 60_000;
// A worker left idle this long is stopped (it holds the parsers it loaded, PDF.js among them).
const IDLE_MS = 5_000;

/**
 * Parses documents one at a time in a worker thread whose heap is capped at `memoryMb`, and stops
 * it when a document takes longer than its `timeMs`: a document that would exhaust memory or never
 * finish is refused (`ZERDA_DOCUMENT_LIMIT`, limit `memoryMb` or `timeMs`) while the process and
 * the other documents carry on. A new worker is started after one is stopped. Starting a worker and
 * loading the parsers costs about a second on a small machine, so one parser per memory limit is
 * shared by every stream of the process ({@link sharedParser}): requests queue, and the worker
 * stops after a few idle seconds and never keeps the process alive.
 */
export class IsolatedParser {
  private worker: Worker | undefined;
  private pending: Pending | undefined;
  private nextId = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  private readonly memoryMb: number;

  constructor(memoryMb: number) {
    this.memoryMb = memoryMb;
  }

  /** Parses one document in the worker, after the documents queued before it. */
  parse(format: DocumentFormat, bytes: Uint8Array, file: string, settings: ParseSettings): Promise<RecordResult> {
    const run = this.queue.then(() => this.run(format, bytes, file, settings));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the worker (a later parse starts a new one). */
  async close(): Promise<void> {
    await this.stop();
  }

  private run(format: DocumentFormat, bytes: Uint8Array, file: string, settings: ParseSettings): Promise<RecordResult> {
    if (this.idle) clearTimeout(this.idle);
    const worker = this.worker ?? this.start();
    const timeMs = settings.limits.timeMs;
    const done = new Promise<RecordResult>((resolve, reject) => {
      const id = ++this.nextId;
      const expire = (): void => {
        this.settle(worker, (pending) => pending.reject(limitExceeded(file, format, 'timeMs', timeMs, `parsing it took longer than ${timeMs} ms`)));
        void this.stop();
      };
      // Until the worker says the parser is loaded, starting a worker and importing a parser get a
      // generous allowance of their own; then the document gets timeMs.
      const timer = setTimeout(expire, Math.max(timeMs, STARTUP_MS));
      this.pending = { id, worker, file, format, timer, resolve, reject, restart: () => setTimeout(expire, timeMs) };
      worker.postMessage({ id, format, bytes, file, settings });
    });
    return done.finally(() => {
      this.idle = setTimeout(() => void this.stop(), IDLE_MS);
      this.idle.unref();
    });
  }

  private start(): Worker {
    const worker = new Worker(workerUrl(), {
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: Math.max(16, Math.min(64, Math.floor(this.memoryMb / 8))) },
      // Flags that only make sense for the main script (`--input-type`, `--eval` …) would stop the worker.
      execArgv: process.execArgv.filter((flag) => !/^--(input-type|eval|print|test)\b|^-[ep]$/.test(flag)),
      stdout: false,
      stderr: false,
    });
    // An idle worker never keeps the process alive (a pending parse has its timer for that).
    worker.unref();
    worker.on('message', (message: WireResult) => {
      const pending = this.pending;
      if (pending?.id !== message.id) return;
      if ('started' in message) {
        clearTimeout(pending.timer);
        pending.timer = pending.restart();
        return;
      }
      this.settle(worker, (pending) => {
        if (message.ok) pending.resolve({ documents: message.documents, failures: message.failures.map((failure) => ({ record: failure.record, error: errorFromWire(failure.error) })) });
        else pending.reject(errorFromWire(message.error));
      });
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (this.worker === worker) this.worker = undefined;
      this.settle(worker, (pending) => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') pending.reject(limitExceeded(pending.file, pending.format, 'memoryMb', this.memoryMb, `parsing it needed more than ${this.memoryMb} MiB of memory`));
        else pending.reject(unreadable(pending.file, pending.format, 'crashed', `the parser stopped (${error.message})`, error));
      });
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      this.settle(worker, (pending) => pending.reject(unreadable(pending.file, pending.format, 'crashed', `the parser stopped (exit code ${code})`)));
    });
    this.worker = worker;
    return worker;
  }

  /** Ends the pending parse with `action`, if it is the one `worker` was running. */
  private settle(worker: Worker, action: (pending: Pending) => void): void {
    const pending = this.pending;
    if (!pending || pending.worker !== worker) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    action(pending);
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}

const shared = new Map<number, IsolatedParser>();

/** The process-wide parser for a heap limit (see {@link IsolatedParser}). */
export function sharedParser(memoryMb: number): IsolatedParser {
  let parser = shared.get(memoryMb);
  if (!parser) {
    parser = new IsolatedParser(memoryMb);
    shared.set(memoryMb, parser);
  }
  return parser;
}
