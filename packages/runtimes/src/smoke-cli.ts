/**
 * Runs the smoke script against `@zerda/context` as installed (Node.js, Bun and Deno resolve it
 * from node_modules) and prints one line: `ZERDA_SMOKE {json report}`. Exits non-zero on a failed
 * check. Node-like runtimes also have files: a memory store is saved and loaded again, which
 * exercises the `node` condition of `#store-file` in each of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zerda from '@zerda/context';
import { smoke } from './smoke.js';

interface RuntimeGlobals {
  Bun?: { version: string };
  Deno?: { version: { deno: string } };
}

function runtimeName(): string {
  const globals = globalThis as RuntimeGlobals;
  if (globals.Bun) return `bun ${globals.Bun.version}`;
  if (globals.Deno) return `deno ${globals.Deno.version.deno}`;
  return `node ${process.versions.node}`;
}

/** Saves a small store with Arabic and English chunks to a file and loads it back; returns the checks made. */
async function fileRoundTrip(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'zerda-smoke-'));
  try {
    const store = new zerda.MemoryVectorStore({ metric: 'cosine' });
    const chunk = (id: string, text: string, embedding: number[]) => ({ id, docId: id, text, source: `${id}.md`, metadata: { lang: /[\u0600-\u06ff]/u.test(text) ? 'ar' : 'en' }, position: { index: 0 }, embedding });
    await store.add([chunk('ar', 'القطط حيوانات أليفة', [0.1, 0.9, 0.2]), chunk('en', 'Dogs are loyal', [0.8, 0.1, 0.3])]);
    const path = join(dir, 'store.zvm');
    await store.save(path);
    const loaded = await zerda.MemoryVectorStore.load(path);
    const hits = await loaded.search([0.2, 0.8, 0.1], { k: 1, filter: { lang: 'ar' } });
    if ((await loaded.count()) !== 2 || hits[0]?.chunk.text !== 'القطط حيوانات أليفة') throw new Error(`smoke check failed under ${runtimeName()}: the memory store read back from ${path} differs`);
    return 2;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  const report = await smoke(zerda, runtimeName());
  report.checks += await fileRoundTrip();
  console.log(`ZERDA_SMOKE ${JSON.stringify(report)}`);
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
