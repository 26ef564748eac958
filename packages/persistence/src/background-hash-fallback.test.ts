import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SnapshotReader } from '@zerda/types';
import { readSnapshotDirectory, writeSnapshotDirectory, type SnapshotFormat } from './index.js';

// A runtime whose worker threads start but cannot run the hashing job: every message is answered by an
// 'error' event (as a worker whose script fails to load). The readers must hash on their own thread.
const started = vi.hoisted(() => ({ workers: 0, messages: 0 }));
vi.mock('node:worker_threads', () => ({
  Worker: class extends EventEmitter {
    constructor() {
      super();
      started.workers++;
    }
    postMessage(): void {
      started.messages++;
      setImmediate(() => this.emit('error', new Error('this runtime cannot run the hashing thread')));
    }
    ref(): void {}
    unref(): void {}
  },
}));

const FORMAT: SnapshotFormat = { format: 'zerda-test', formatVersion: 1, readableVersions: [1], producer: '@zerda/persistence test', zerdaVersion: '0.0.0-test' };

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'zerda-hash-fallback-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function flipByte(path: string, offset: number): Promise<void> {
  const bytes = await readFile(path);
  bytes[offset] = bytes[offset]! ^ 0x20;
  await writeFile(path, bytes);
}

describe('verification without a working hashing thread', () => {
  const large = new Uint8Array(3 << 20).map((_, index) => (index * 31) & 0xff);
  const whole = (reader: SnapshotReader) => reader.readFile('large.bin');
  const partly = (reader: SnapshotReader) => reader.openFile('large.bin').then(async (file) => (await file.read(1000), await file.close()));

  it('a thread that fails its job leaves the hashing to the reader: intact files open, a flipped byte is refused', async () => {
    const directory = join(root, 'failing-thread');
    const written = await writeSnapshotDirectory(directory, FORMAT, (writer) => writer.writeFile('large.bin', large));
    expect(Buffer.from(await readSnapshotDirectory(directory, FORMAT, whole)).equals(Buffer.from(large))).toBe(true);
    expect(started.workers).toBe(1);
    expect(started.messages).toBe(1);
    await flipByte(join(directory, written.generation, 'large.bin'), 2_500_000);
    await expect(readSnapshotDirectory(directory, FORMAT, whole)).rejects.toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file: 'large.bin', check: 'sha256' } });
  });

  it('once the thread has failed no other starts, and reads hashed as they go keep the same guarantee (whole or in part)', async () => {
    const directory = join(root, 'no-thread');
    const written = await writeSnapshotDirectory(directory, FORMAT, (writer) => writer.writeFile('large.bin', large));
    const workers = started.workers;
    expect(Buffer.from(await readSnapshotDirectory(directory, FORMAT, whole)).equals(Buffer.from(large))).toBe(true);
    await expect(readSnapshotDirectory(directory, FORMAT, partly)).rejects.toMatchObject({ details: { file: 'large.bin', check: 'consistency' } });
    await flipByte(join(directory, written.generation, 'large.bin'), 100);
    await expect(readSnapshotDirectory(directory, FORMAT, whole)).rejects.toMatchObject({ details: { file: 'large.bin', check: 'sha256' } });
    await expect(readSnapshotDirectory(directory, FORMAT, partly)).rejects.toMatchObject({ details: { file: 'large.bin', check: 'sha256' } });
    expect(started.workers).toBe(workers);
  });
});
