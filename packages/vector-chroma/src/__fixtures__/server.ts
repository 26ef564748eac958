import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChromaServer, type ChromaServer } from '../chroma-server.js';

/** A Chroma server on a fresh temporary directory, and a function that stops it and removes the directory. */
export async function temporaryServer(): Promise<{ server: ChromaServer; directory: string; restart(): Promise<ChromaServer>; dispose(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'zerda-chroma-'));
  let server = await startChromaServer({ path: directory });
  return {
    get server() {
      return server;
    },
    directory,
    async restart() {
      await server.stop();
      server = await startChromaServer({ path: directory, port: server.port });
      return server;
    },
    async dispose() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A collection name unique within this process. */
export function uniqueCollection(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}
