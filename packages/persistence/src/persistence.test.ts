import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rename, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshotJson, writeSnapshotJson, type ContentSharingReader, type SnapshotReader, type SnapshotWriter } from '@zerda/types';
import {
  FILE_MAGIC,
  LOCK_FILE,
  POINTER_FILE,
  claimTemporary,
  hasSnapshotDirectory,
  readSnapshotDirectory,
  readSnapshotFile,
  removeStaleTemporaries,
  withDirectoryLock,
  writeFileAtomic,
  writeSnapshotDirectory,
  writeSnapshotFile,
  type SnapshotFormat,
} from './index.js';
import { HOST_TAG } from './files.js';
import { listTree } from './testing.js';

const FORMAT: SnapshotFormat = { format: 'zerda-test', formatVersion: 2, readableVersions: [1, 2], producer: '@zerda/persistence test', zerdaVersion: '0.0.0-test' };

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'zerda-persistence-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let counter = 0;
const fresh = (name: string) => join(root, `${name}-${counter++}`);

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
}

async function writeSample(writer: SnapshotWriter, label: string): Promise<void> {
  await writeSnapshotJson(writer, 'meta.json', { label });
  await writer.writeFile('data/values.bin', [new Uint8Array([1, 2, 3]), 'text', new Uint8Array(3000).fill(label.charCodeAt(0))]);
  await writer.scope('nested').writeFile('deep/file.txt', `hello ${label}`);
}

async function readSample(reader: SnapshotReader): Promise<{ label: unknown; values: number; deep: string }> {
  const meta = await readSnapshotJson(reader, 'meta.json');
  const values = await reader.readFile('data/values.bin');
  const deep = new TextDecoder().decode(await reader.scope('nested').readFile('deep/file.txt'));
  return { label: meta.label, values: values.length, deep };
}

async function generationOf(directory: string): Promise<string> {
  return (JSON.parse(await readFile(join(directory, POINTER_FILE), 'utf8')) as { generation: string }).generation;
}

async function flipByte(path: string, offset = 0): Promise<void> {
  const bytes = await readFile(path);
  bytes[offset] = bytes[offset]! ^ 0x20;
  await writeFile(path, bytes);
}

/** Breaks a hard link: `path` becomes a separate file of its own, with one byte flipped (its recorded checksum unchanged). */
async function damagedSeparateCopy(path: string): Promise<void> {
  const bytes = await readFile(path);
  await writeFile(`${path}.copy`, bytes);
  await rename(`${path}.copy`, path);
  await flipByte(path);
}

describe('writeFileAtomic', () => {
  it('creates missing directories and replaces the file whole', async () => {
    const path = join(fresh('atomic'), 'a', 'b', 'file.bin');
    await writeFileAtomic(path, 'first');
    await writeFileAtomic(path, ['sec', new Uint8Array([0x6f, 0x6e, 0x64])]);
    expect(await readFile(path, 'utf8')).toBe('second');
  });

  it('a write that fails half-way leaves the previous file and no temporary', async () => {
    const directory = fresh('atomic-fail');
    const path = join(directory, 'file.txt');
    await writeFileAtomic(path, 'kept');
    async function* failing() {
      yield 'partial';
      throw new Error('disk full');
    }
    await expect(writeFileAtomic(path, failing())).rejects.toMatchObject({ code: 'ZERDA_STORE_IO', message: expect.stringContaining('disk full') });
    expect(await readFile(path, 'utf8')).toBe('kept');
    expect(await readdir(directory)).toEqual(['file.txt']);
  });

  it("removes a killed writer's temporary on the next write, and leaves live and foreign ones alone", async () => {
    const directory = fresh('stale');
    const path = join(directory, 'store.zvm');
    await writeFileAtomic(path, 'v1');
    const stale = join(directory, `.store.zvm.${HOST_TAG}-${deadPid()}-aaaaaaaaaaaa.tmp`);
    const foreign = join(directory, `.store.zvm.00000000-1-bbbbbbbbbbbb.tmp`);
    const live = claimTemporary(path);
    const other = join(directory, '.other.zvm.tmp');
    for (const file of [stale, foreign, live, other]) await writeFile(file, 'x');
    await writeFileAtomic(path, 'v2');
    const names = await readdir(directory);
    expect(names).not.toContain(stale.split('/').pop());
    expect(names).toEqual(expect.arrayContaining(['store.zvm', foreign.split('/').pop(), live.split('/').pop(), '.other.zvm.tmp']));
    expect(await removeStaleTemporaries(directory)).toEqual([]);
  });
});

describe('withDirectoryLock', () => {
  it('serialises operations on one directory in call order', async () => {
    const directory = fresh('lock-order');
    const events: string[] = [];
    const slow = (name: string, ms: number) =>
      withDirectoryLock(directory, async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`end ${name}`);
      });
    await Promise.all([slow('a', 30), slow('b', 1), slow('c', 1)]);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(await readdir(directory)).toEqual([]);
  });

  it('fails clearly while another live process holds the lock, and takes over the lock of a dead one', async () => {
    const directory = fresh('lock-process');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      await withDirectoryLock(directory, async () => undefined);
      await writeFile(join(directory, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: HOST_TAG, nonce: 'n1', since: 'then' }));
      await expect(withDirectoryLock(directory, async () => 'ran')).rejects.toMatchObject({
        code: 'ZERDA_STORE_IO',
        message: expect.stringContaining(`process ${sleeper.pid} on this machine is saving into this directory`),
      });
    } finally {
      sleeper.kill('SIGKILL');
    }
    await writeFile(join(directory, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: HOST_TAG, nonce: 'n2', since: 'then' }));
    await expect(withDirectoryLock(directory, async () => 'ran')).resolves.toBe('ran');
    expect(await readdir(directory)).toEqual([]);
  });
});

describe('snapshot directories', () => {
  it('round-trips files, keeps one generation, and reports the manifest', async () => {
    const directory = fresh('snap');
    expect(await hasSnapshotDirectory(directory)).toBe(false);
    const first = await writeSnapshotDirectory(directory, FORMAT, async (writer) => {
      await writeSample(writer, 'a');
      return { chunks: 3 };
    });
    expect(first.manifest.files.map((entry) => entry.name)).toEqual(['data/values.bin', 'meta.json', 'nested/deep/file.txt']);
    expect(first.manifest).toMatchObject({ format: 'zerda-test', formatVersion: 2, zerdaVersion: '0.0.0-test', info: { chunks: 3 } });
    await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'b'));
    expect(await hasSnapshotDirectory(directory)).toBe(true);
    const read = await readSnapshotDirectory(directory, FORMAT, (reader) => readSample(reader));
    expect(read).toEqual({ label: 'b', values: 3007, deep: 'hello b' });
    const generation = await generationOf(directory);
    expect(await readdir(directory)).toEqual([POINTER_FILE, generation].sort());
  });

  it('stores files of equal content once (hard links), counts them once, and still verifies each name', async () => {
    const directory = fresh('dedupe');
    const same = new Uint8Array(5000).fill(7);
    const written = await writeSnapshotDirectory(directory, FORMAT, async (writer) => {
      await writer.writeFile('keyword/text.str', same);
      await writer.writeFile('vectors/text.str', same);
      await writer.writeFile('other.bin', new Uint8Array(5000).fill(8));
    });
    const root = join(directory, written.generation);
    const [a, b, c] = await Promise.all(['keyword/text.str', 'vectors/text.str', 'other.bin'].map((name) => stat(join(root, name))));
    expect(a!.ino).toBe(b!.ino);
    expect(c!.ino).not.toBe(a!.ino);
    expect(written.bytes).toBeLessThan(10_000 + 2000);
    expect(await readSnapshotDirectory(directory, FORMAT, async (reader) => (await reader.readFile('vectors/text.str')).length)).toBe(5000);
    // Damage through one name is damage to both: each is verified.
    await flipByte(join(root, 'keyword', 'text.str'));
    await expect(readSnapshotDirectory(directory, FORMAT, (reader) => reader.readFile('vectors/text.str'))).rejects.toMatchObject({ details: { file: 'keyword/text.str', check: 'sha256' } });
  });

  /** A snapshot holding the same 70,000 bytes as keyword/text.str and vectors/text.str (stored once), and other/text.str. */
  async function sameContentTwice(name: string) {
    const directory = fresh(name);
    const same = new Uint8Array(70_000).map((_, index) => (index * 31) & 0xff);
    const written = await writeSnapshotDirectory(directory, FORMAT, async (writer) => {
      await writer.writeFile('keyword/text.str', same);
      await writer.writeFile('vectors/text.str', same);
      await writer.writeFile('other/text.str', new Uint8Array(70_000).fill(1));
    });
    return { directory, same, written };
  }

  it('reads content stored once through both names, and still hashes an equal file that is not the same file', async () => {
    const { directory, same, written } = await sameContentTwice('dedupe-read');
    const both = (reader: SnapshotReader) => Promise.all([reader.readFile('keyword/text.str'), reader.readFile('vectors/text.str')]);
    const [first, second] = await readSnapshotDirectory(directory, FORMAT, async (reader) => both(reader));
    expect(first).toEqual(same);
    expect(second).toEqual(same);
    // Break the link: the second name becomes a separate, damaged file with the same recorded checksum.
    await damagedSeparateCopy(join(directory, written.generation, 'vectors', 'text.str'));
    await expect(
      readSnapshotDirectory(directory, FORMAT, async (reader) => {
        await reader.readFile('keyword/text.str');
        return reader.readFile('vectors/text.str');
      }),
    ).rejects.toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { file: 'vectors/text.str', check: 'sha256' } });
  });

  it('shares a value read from files of equal content within one open, and still verifies the files it did not read', async () => {
    const { directory, written } = await sameContentTwice('shared-values');
    let reads = 0;
    const readSum = (reader: SnapshotReader, scope: string, kind = 'sum') =>
      (reader.scope(scope) as ContentSharingReader).sharedByContent(kind, ['text.str'], async () => {
        reads++;
        return (await reader.scope(scope).readFile('text.str')).reduce((total, byte) => total + byte, 0);
      });
    const sums = await readSnapshotDirectory(directory, FORMAT, async (reader) => [await readSum(reader, 'keyword'), await readSum(reader, 'vectors'), await readSum(reader, 'other'), await readSum(reader, 'vectors', 'other kind')]);
    expect(sums[0]).toBe(sums[1]);
    expect(sums[2]).toBe(70_000);
    expect(reads).toBe(3); // equal content of the same kind read once
    // The value is shared per open: a new open reads again.
    await readSnapshotDirectory(directory, FORMAT, (reader) => readSum(reader, 'vectors'));
    expect(reads).toBe(4);
    // A separate, damaged file with the same recorded checksum: its value came from the other name, but the open still refuses it.
    await damagedSeparateCopy(join(directory, written.generation, 'vectors', 'text.str'));
    await expect(readSnapshotDirectory(directory, FORMAT, async (reader) => [await readSum(reader, 'keyword'), await readSum(reader, 'vectors')])).rejects.toMatchObject({
      code: 'ZERDA_CORRUPT_SNAPSHOT',
      details: { file: 'vectors/text.str', check: 'sha256' },
    });
    expect(reads).toBe(5);
  });

  it('verifies large files on the hashing thread with the same guarantee: a flipped byte is refused, a file read in part is refused', async () => {
    const directory = fresh('background-hash');
    const large = new Uint8Array(3 << 20).map((_, index) => (index * 13) & 0xff);
    const written = await writeSnapshotDirectory(directory, FORMAT, (writer) => writer.writeFile('large.bin', large));
    expect(Buffer.from(await readSnapshotDirectory(directory, FORMAT, (reader) => reader.readFile('large.bin'))).equals(large)).toBe(true);
    const partly = (reader: SnapshotReader) => reader.openFile('large.bin').then(async (file) => (await file.read(1000), await file.close()));
    await expect(readSnapshotDirectory(directory, FORMAT, partly)).rejects.toMatchObject({ details: { file: 'large.bin', check: 'consistency' } });
    await flipByte(join(directory, written.generation, 'large.bin'), 2_000_000);
    await expect(readSnapshotDirectory(directory, FORMAT, (reader) => reader.readFile('large.bin'))).rejects.toMatchObject({ details: { file: 'large.bin', check: 'sha256' } });
    await expect(readSnapshotDirectory(directory, FORMAT, partly)).rejects.toMatchObject({ details: { file: 'large.bin', check: 'sha256' } });
  });

  it('a failing write leaves the previous snapshot openable and removes its partial generation', async () => {
    const directory = fresh('snap-fail');
    await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'a'));
    const before = await listTree(directory);
    await expect(
      writeSnapshotDirectory(directory, FORMAT, async (writer) => {
        await writeSample(writer, 'b');
        throw new Error('embedder exploded');
      }),
    ).rejects.toThrow('embedder exploded');
    expect(await listTree(directory)).toEqual(before);
    expect((await readSnapshotDirectory(directory, FORMAT, readSample)).label).toBe('a');
  });

  it('components may write their own files into a directory; they are checksummed too', async () => {
    const directory = fresh('snap-local');
    await writeSnapshotDirectory(directory, FORMAT, async (writer) => {
      const path = await writer.scope('native').directory('graph');
      await writeFile(join(path, 'index.bin'), 'native bytes');
    });
    const generation = await generationOf(directory);
    await flipByte(join(directory, generation, 'native', 'graph', 'index.bin'));
    await expect(readSnapshotDirectory(directory, FORMAT, (reader) => reader.scope('native').directory('graph'))).rejects.toMatchObject({
      code: 'ZERDA_CORRUPT_SNAPSHOT',
      details: { file: 'native/graph/index.bin', check: 'sha256' },
    });
  });

  describe('refuses damage, naming the file and the check', () => {
    const cases: Array<[string, (directory: string, generation: string) => Promise<void>, { file: string; check: string }]> = [
      ['a flipped byte', (d, g) => flipByte(join(d, g, 'data', 'values.bin'), 10), { file: 'data/values.bin', check: 'sha256' }],
      ['a truncated file', (d, g) => truncate(join(d, g, 'data', 'values.bin'), 100), { file: 'data/values.bin', check: 'size' }],
      ['a missing file', (d, g) => unlink(join(d, g, 'nested', 'deep', 'file.txt')), { file: 'nested/deep/file.txt', check: 'exists' }],
      [
        'a hand-edited manifest',
        async (d, g) => {
          const path = join(d, g, 'manifest.json');
          await writeFile(path, (await readFile(path, 'utf8')).replace('"zerdaVersion": "0.0.0-test"', '"zerdaVersion": "9.9.9"'));
        },
        { file: 'manifest.json', check: 'sha256' },
      ],
      ['a garbled CURRENT', (d) => writeFile(join(d, POINTER_FILE), '{"format":'), { file: POINTER_FILE, check: 'pointer' }],
      ['no CURRENT', (d) => unlink(join(d, POINTER_FILE)), { file: POINTER_FILE, check: 'exists' }],
      // The component reads meta.json as JSON: the flip makes it unparsable, and the checksum is what gets reported.
      ['damage that breaks parsing', (d, g) => flipByte(join(d, g, 'meta.json'), 0), { file: 'meta.json', check: 'sha256' }],
    ];
    for (const [name, damage, expected] of cases) {
      it(name, async () => {
        const directory = fresh('damage');
        await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'a'));
        await damage(directory, await generationOf(directory));
        const error = await readSnapshotDirectory(directory, FORMAT, readSample).catch((caught: unknown) => caught);
        expect(error).toMatchObject({ code: 'ZERDA_CORRUPT_SNAPSHOT', details: { path: directory, ...expected } });
        expect((error as Error).message).toContain(expected.file);
      });
    }

    it('files no component read are verified too', async () => {
      const directory = fresh('unread');
      await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'a'));
      await flipByte(join(directory, await generationOf(directory), 'nested', 'deep', 'file.txt'));
      await expect(readSnapshotDirectory(directory, FORMAT, (reader) => readSnapshotJson(reader, 'meta.json'))).rejects.toMatchObject({ details: { file: 'nested/deep/file.txt', check: 'sha256' } });
    });
  });

  it('says which format version is needed', async () => {
    const directory = fresh('versions');
    await writeSnapshotDirectory(directory, { ...FORMAT, formatVersion: 3 }, (writer) => writeSample(writer, 'a'));
    await expect(readSnapshotDirectory(directory, FORMAT, readSample)).rejects.toMatchObject({
      code: 'ZERDA_CORRUPT_SNAPSHOT',
      details: { check: 'version' },
      message: expect.stringContaining('format version 3 by zerda 0.0.0-test; @zerda/persistence test reads version 1, 2: a newer zerda that reads format version 3 is needed'),
    });
    await writeSnapshotDirectory(directory, { ...FORMAT, formatVersion: 1 }, (writer) => writeSample(writer, 'old'));
    expect((await readSnapshotDirectory(directory, FORMAT, readSample)).label).toBe('old');
    await writeSnapshotDirectory(directory, { ...FORMAT, formatVersion: 0 }, (writer) => writeSample(writer, 'a'));
    await expect(readSnapshotDirectory(directory, FORMAT, readSample)).rejects.toThrow(/format version 0 .* save it again with a zerda that still reads version 0/);
  });

  it('a save that replaces the generation during a read makes the read start over on the new one', async () => {
    const directory = fresh('replaced');
    await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'a'));
    let replaced = false;
    const read = await readSnapshotDirectory(directory, FORMAT, async (reader) => {
      if (!replaced) {
        replaced = true;
        await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'b'));
      }
      return readSample(reader);
    });
    expect(read.label).toBe('b');
  });

  it('concurrent saves to one directory wait for each other and the last one wins', async () => {
    const directory = fresh('concurrent');
    await Promise.all(['a', 'b', 'c', 'd'].map((label) => writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, label))));
    expect((await readSnapshotDirectory(directory, FORMAT, readSample)).label).toBe('d');
    expect(await readdir(directory)).toHaveLength(2);
  });

  it('leaves files of other naming in the directory alone', async () => {
    const directory = fresh('foreign');
    await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'a'));
    await writeFile(join(directory, 'notes.txt'), 'mine');
    await writeSnapshotDirectory(directory, FORMAT, (writer) => writeSample(writer, 'b'));
    expect(await readFile(join(directory, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('rejects file names outside the naming rule and a second write of a name', async () => {
    const directory = fresh('names');
    await expect(writeSnapshotDirectory(directory, FORMAT, (writer) => writer.writeFile('../escape', 'x'))).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    await expect(writeSnapshotDirectory(directory, FORMAT, (writer) => writer.writeFile('Upper.txt', 'x'))).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    await expect(
      writeSnapshotDirectory(directory, FORMAT, async (writer) => {
        await writer.writeFile('a.txt', 'x');
        await writer.writeFile('a.txt', 'y');
      }),
    ).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    expect(await hasSnapshotDirectory(directory)).toBe(false);
  });
});

describe('single-file snapshots', () => {
  it('round-trips and refuses damage with the format error code', async () => {
    const path = join(fresh('file'), 'sub', 'store.bin');
    const format: SnapshotFormat = { ...FORMAT, errorCode: 'ZERDA_STORE_CORRUPT' };
    await writeSnapshotFile(path, format, (writer) => writeSample(writer, 'a'));
    await writeSnapshotFile(path, format, (writer) => writeSample(writer, 'b'));
    expect(await readSnapshotFile(path, format, readSample)).toEqual({ label: 'b', values: 3007, deep: 'hello b' });
    expect((await readFile(path)).subarray(0, 8).toString('latin1')).toBe(FILE_MAGIC);
    const bytes = await readFile(path);
    const size = (await stat(path)).size;

    await flipByte(path, 20);
    await expect(readSnapshotFile(path, format, readSample)).rejects.toMatchObject({ code: 'ZERDA_STORE_CORRUPT', details: { check: 'sha256', file: 'meta.json' } });
    await writeFile(path, bytes);
    await truncate(path, size - 10);
    await expect(readSnapshotFile(path, format, readSample)).rejects.toMatchObject({ details: { check: 'size', file: 'footer' } });
    await writeFile(path, bytes);
    await flipByte(path, size - 60);
    await expect(readSnapshotFile(path, format, readSample)).rejects.toMatchObject({ details: { check: 'sha256', file: 'footer' } });
    await writeFile(path, 'not a snapshot');
    await expect(readSnapshotFile(path, format, readSample)).rejects.toMatchObject({ details: { check: 'format', file: 'header' } });
    await expect(readSnapshotFile(`${path}.missing`, format, readSample)).rejects.toMatchObject({ details: { check: 'exists' } });
  });

  it('has no room for native directories', async () => {
    await expect(writeSnapshotFile(join(fresh('file-dir'), 'x.bin'), FORMAT, async (writer) => { await writer.directory('graph'); })).rejects.toMatchObject({ code: 'ZERDA_UNSUPPORTED' });
  });
});
