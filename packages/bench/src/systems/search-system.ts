import type { DatasetDocument } from '@zerda/retriever/datasets';

/** Turns a query into its embedding (the same model for every system in a run). */
export type QueryEmbedder = (text: string) => Promise<Float32Array>;

/** What a system is given to build its index. */
export interface BuildInput {
  documents: readonly DatasetDocument[];
  /** One embedding per document (same order), when the system uses vectors. */
  vectors?: readonly Float32Array[];
}

/**
 * One retrieval system under test, zerda's or a peer's, behind the smallest common surface: build
 * an index over documents, then answer a query with document ids, best first. Query embedding (for
 * vector and hybrid systems) happens inside `search`, so it is part of the measured latency for
 * every system alike.
 */
export interface SearchSystem {
  /** Stable identifier used in results (`zerda-keyword`, `minisearch`, …). */
  readonly id: string;
  /** The settings used, written into BENCHMARKS.md. */
  readonly settings: string;
  build(input: BuildInput): Promise<void>;
  /** Why the system could not serve this corpus, when it can tell (e.g. its analysis dropped every token). */
  diagnose?(): string | undefined;
  search(query: string, k: number): Promise<string[]>;
  /** When set, the job also measures queries per second from this many concurrent callers (a server's connection pool). */
  readonly concurrentClients?: number | undefined;
  close?(): Promise<void>;
}

/** Raised when a system cannot run in this setting (no embedder for the language, unsupported script …). */
export class SystemUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SystemUnavailableError';
  }
}

/** The text a document is indexed and packed as when a system has one text field: the title line, then the text. */
export function documentContent(document: DatasetDocument): string {
  return document.title ? `${document.title}\n${document.text}` : document.text;
}
