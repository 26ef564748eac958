import { createHash } from 'node:crypto';
import type { ContextResult } from '@zerda/types';
import type { ScaleConfiguration } from './jobs.js';

/** What the parent asks `snapshot-open-worker.js` (the scale section's snapshot rows). */
export interface OpenRequest {
  directory: string;
  configuration: ScaleConfiguration;
  language: string;
  queries: string[];
  budget: number;
}

/** What `snapshot-open-worker.js` reports. */
export interface OpenReport {
  openMs: number;
  /** From the start of `open` to the first query's answer (what a cold start waits before serving). */
  firstAnswerMs: number;
  /** Resident set before `open` (Node, the packages, the embedder loaded) and the peak when it returned. */
  baselineRssBytes: number;
  peakRssBytes: number;
  /** SHA-256 of every answer's context and chunk ids, in query order (see {@link answersDigest}). */
  answers: string;
}

/** A digest of the answers to compare saved and opened engines by. */
export function answersDigest(results: readonly ContextResult[]): string {
  const hash = createHash('sha256');
  for (const result of results) hash.update(JSON.stringify([result.context, result.chunks.map((used) => used.chunk.id)]));
  return hash.digest('hex');
}

