import { existsSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { parseMetadataFilter, type VectorStore } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import { chunkWithMetadata, hostileChunks, hostileFilter, idsMatchingFilter } from './filter-testing.js';
import { reopenThroughFiles, skipAndTitle, temporaryDirectory, uniqueName } from './test-directories.js';
import { testSaveSurvivesKills } from './crash-suite.js';

describe('test directories', () => {
  it('uniqueName never repeats within the process and keeps the prefix', () => {
    const names = Array.from({ length: 50 }, () => uniqueName('t'));
    expect(new Set(names).size).toBe(50);
    expect(names.every((name) => name.startsWith(`t_${process.pid}_`))).toBe(true);
  });

  it('refuses bad options with a ZerdaError naming the field', async () => {
    expect(() => uniqueName('')).toThrow(/prefix must be a non-empty string/);
    await expect(temporaryDirectory('../escape')).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'prefix' } });
    expect(() => reopenThroughFiles({ prefix: 'p-', save: async () => {}, load: 'no' as never })).toThrow(/options\.load must be a function/);
    expect(() => reopenThroughFiles({ prefix: 'p-', file: 'a/b', save: async () => {}, load: async () => ({}) as never })).toThrow(/options\.file/);
    expect(() => testSaveSurvivesKills({ name: 'x', prefix: 'p-', childScript: '', create: () => ({}) as never, save: async () => {}, load: async () => ({}) as never, target: { file: 'f' } })).toThrow(/options\.childScript/);
    expect(() => skipAndTitle('suite', 3 as never)).toThrow(/options\.skip must be a boolean or a string/);
    expect(skipAndTitle('suite', 'no server')).toEqual({ skipped: true, title: 'suite (skipped: no server)' });
    expect(skipAndTitle('suite', '')).toEqual({ skipped: false, title: 'suite' });
    expect(skipAndTitle('suite', undefined)).toEqual({ skipped: false, title: 'suite' });
  });

  it('temporaryDirectory creates a fresh directory that remove() deletes', async () => {
    const directory = await temporaryDirectory('zerda-helpers-');
    expect(statSync(directory.path).isDirectory()).toBe(true);
    expect(basename(directory.path).startsWith('zerda-helpers-')).toBe(true);
    await directory.remove();
    expect(existsSync(directory.path)).toBe(false);
  });

  // A stand-in store: what reopenThroughFiles needs is save and load.
  const stand = (label: string) => ({ label }) as unknown as VectorStore & { label: string };
  const paths: string[] = [];
  const throughFile = reopenThroughFiles<VectorStore & { label: string }>({
    prefix: 'zerda-helpers-reopen-',
    file: 'store.json',
    save: async (store, path) => {
      paths.push(path);
      await writeFile(path, JSON.stringify({ label: store.label }));
    },
    load: async (path) => stand(JSON.parse(await readFile(path, 'utf8')).label),
  });
  const throughDirectory = reopenThroughFiles<VectorStore & { label: string }>({
    prefix: 'zerda-helpers-reopen-',
    save: async (store, path) => {
      paths.push(path);
      expect(statSync(path).isDirectory()).toBe(true);
      await writeFile(`${path}/label`, store.label);
    },
    load: async (path) => stand(await readFile(`${path}/label`, 'utf8')),
  });

  it('reopenThroughFiles saves into a new temporary directory each time and loads back what was saved', async () => {
    expect(((await throughFile(stand('a'))) as VectorStore & { label: string }).label).toBe('a');
    expect(((await throughFile(stand('b'))) as VectorStore & { label: string }).label).toBe('b');
    expect(((await throughDirectory(stand('c'))) as VectorStore & { label: string }).label).toBe('c');
    expect(basename(paths[0]!)).toBe('store.json');
    expect(dirname(paths[0]!)).not.toBe(dirname(paths[1]!));
    expect(basename(paths[2]!).startsWith('zerda-helpers-reopen-')).toBe(true);
  });
});

describe('filter-test helpers', () => {
  it('hostileFilter is a valid filter holding the key and value in every clause', () => {
    const parsed = parseMetadataFilter(hostileFilter("'; DROP", 'Reilly'));
    const text = JSON.stringify(parsed);
    // The key: the equality, $in, the range and $not; the value: those and $nin on docId.
    expect(text.split("'; DROP").length - 1).toBe(4);
    expect(text.split('Reilly').length - 1).toBe(5);
    expect(Object.keys(parsed).sort()).toEqual(['$not', '$or', "'; DROP"].sort());
  });

  it('hostileChunks makes one chunk per key and value; idsMatchingFilter selects as matchesFilter, sorted', () => {
    const chunks = hostileChunks(['k1', 'k2'], ['x', 'y', 'z']);
    expect(chunks.map((chunk) => chunk.id)).toEqual(['k0v0', 'k0v1', 'k0v2', 'k1v0', 'k1v1', 'k1v2']);
    expect(chunks[4]).toMatchObject({ docId: "doc'1", source: 'src"1', metadata: { k2: 'y', 'k2-list': ['y', 1] } });
    expect(idsMatchingFilter(chunks, { $or: [{ k2: 'z' }, { 'k1-list': 0 }] })).toEqual(['k0v0', 'k1v2']);
    expect(idsMatchingFilter([chunkWithMetadata('b', { a: 1 }), chunkWithMetadata('a', { a: 1 })], { a: 1 })).toEqual(['a', 'b']);
  });
});
