// Node-only: what the `zerda-mcp` binary indexes at start when it is given a folder.
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { ArabicTextChunker, StructureAwareChunker } from '@zerda/chunks';
import { ZerdaError, toDocumentChunk, type DocumentChunk } from '@zerda/context';

/** What {@link loadFolder} read. */
export interface LoadedFolder {
  chunks: DocumentChunk[];
  /** Files read, relative to the folder (POSIX separators), in the order read. */
  files: string[];
}

const MARKDOWN = new Set(['.md', '.markdown']);
const TEXT = new Set(['.txt']);
const JSONL = new Set(['.jsonl']);

async function listFiles(root: string, folder: string, out: string[]): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await listFiles(root, path, out);
    else if (entry.isFile() && [MARKDOWN, TEXT, JSONL].some((kinds) => kinds.has(extname(entry.name).toLowerCase()))) out.push(path);
  }
}

/** The text of the first ATX heading (`# Title`), without its closing hashes; linear in the text. */
export function markdownTitle(markdown: string): string | undefined {
  for (const line of markdown.split('\n')) {
    const opening = /^#{1,6}[ \t]+/.exec(line);
    if (!opening) continue;
    let end = line.length;
    while (end > opening[0].length && ' \t#\r'.includes(line[end - 1]!)) end--;
    const title = line.slice(opening[0].length, end).trim();
    if (title) return title;
  }
  return undefined;
}

/**
 * Reads every `.md`/`.markdown`, `.txt` and `.jsonl` file under `folder` (recursively, in name order,
 * skipping dot-files and `node_modules`). Markdown is chunked by structure (`StructureAwareChunker`),
 * plain text by `ArabicTextChunker` (Arabic, English and mixed text), each file one document whose id
 * and source are its path relative to the folder. A `.jsonl` file holds one chunk per line
 * (`{ "docId", "text", "source"?, "title"?, "metadata"? … }`, blank lines skipped); a bad line fails
 * with a `ZerdaError` naming the file and line.
 */
export async function loadFolder(folder: string, options: { chunkSize?: number } = {}): Promise<LoadedFolder> {
  const paths: string[] = [];
  try {
    await listFiles(folder, folder, paths);
  } catch (error) {
    throw new ZerdaError('ZERDA_STORE_IO', { operation: 'reading the folder', path: folder, reason: error instanceof Error ? error.message : String(error) }, { cause: error });
  }
  const size = options.chunkSize ?? 1000;
  const markdown = new StructureAwareChunker({ size });
  const text = new ArabicTextChunker({ size });
  const chunks: DocumentChunk[] = [];
  const files: string[] = [];
  for (const path of paths) {
    const name = relative(folder, path).split(sep).join('/');
    const content = await readFile(path, 'utf8');
    files.push(name);
    const kind = extname(path).toLowerCase();
    if (JSONL.has(kind)) {
      const lines = content.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!.trim();
        if (line.length === 0) continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (error) {
          throw new ZerdaError('ZERDA_INVALID_ARGUMENT', { field: `${name}:${i + 1}`, expected: 'one JSON chunk per line', received: (error as Error).message });
        }
        chunks.push(toDocumentChunk(value, chunks.length, `${name}:${i + 1}`));
      }
      continue;
    }
    const chunker = MARKDOWN.has(kind) ? markdown : text;
    const title = MARKDOWN.has(kind) ? markdownTitle(content) : undefined;
    chunks.push(...chunker.chunk(content, { docId: name, source: name, ...(title ? { title } : {}) }));
  }
  return { chunks, files };
}
