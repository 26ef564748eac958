import { Worker } from 'node:worker_threads';

/**
 * SHA-256 of file ranges on a worker thread, so that verifying a snapshot runs beside the parsing
 * of it instead of on the same thread (issue 32: hashing was 11–15 % of the 1M-chunk open). The
 * worker reads through the caller's own file descriptor (threads share the process's descriptors):
 * the same open file as the caller reads, even when the snapshot is replaced meanwhile.
 *
 * Where a worker cannot start (a runtime without worker threads), {@link hashInBackground} returns
 * undefined and the caller hashes as it reads; where it fails, its jobs are rejected and the callers
 * hash on their own thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const block = Buffer.allocUnsafe(8 << 20);
parentPort.on('message', ({ id, fd, offset, length }) => {
  try {
    const hash = createHash('sha256');
    let done = 0;
    while (done < length) {
      const read = readSync(fd, block, 0, Math.min(block.length, length - done), offset + done);
      if (read === 0) break;
      hash.update(block.subarray(0, read));
      done += read;
    }
    parentPort.postMessage({ id, bytes: done, sha256: hash.digest('hex') });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Reply = { id: number; bytes: number; sha256: string; error?: undefined } | { id: number; error: string };

let worker: Worker | null | undefined;
const pending = new Map<number, { resolve: (value: { bytes: number; sha256: string }) => void; reject: (error: Error) => void }>();
let nextId = 0;

function hashWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true });
  } catch {
    return (worker = null);
  }
  worker.on('message', (reply: Reply) => {
    const job = pending.get(reply.id);
    if (!job) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker?.unref();
    if (reply.error !== undefined) job.reject(new Error(reply.error));
    else job.resolve({ bytes: reply.bytes, sha256: reply.sha256 });
  });
  // A worker that fails fails its jobs (their readers hash on their own thread), and no other starts.
  worker.on('error', (error) => failAll(error));
  worker.on('exit', () => failAll(new Error('the hashing thread exited')));
  worker.unref();
  return worker;
}

function failAll(error: Error): void {
  worker = null;
  for (const job of pending.values()) job.reject(error);
  pending.clear();
}

/**
 * SHA-256 and byte count of `length` bytes at `offset` of the open descriptor `fd`, computed on the
 * worker thread (fewer bytes only when the file ends first); undefined when no worker can run. The
 * descriptor must stay open until the promise settles.
 */
export function hashInBackground(fd: number, offset: number, length: number): Promise<{ bytes: number; sha256: string }> | undefined {
  const thread = hashWorker();
  if (!thread) return undefined;
  const id = nextId++;
  const result = new Promise<{ bytes: number; sha256: string }>((resolve, reject) => pending.set(id, { resolve, reject }));
  if (pending.size === 1) thread.ref(); // keeps the process alive while a job runs
  thread.postMessage({ id, fd, offset, length });
  return result;
}
