import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '@zerda/types';
import { cacheDirectory, repositoryRoot } from './paths.js';
import type { QueryEmbedder } from './systems/search-system.js';

/** The run's embedding model, or why there is none. */
export interface EmbedderChoice {
  embedder: Embedder | undefined;
  /** The model id, or `none`. */
  modelId: string;
  /** Why no model is used (set when `embedder` is undefined). */
  reason?: string;
  /** A fingerprint of the model files, part of every embedding-cache key. */
  fingerprint: string;
}

const loaded = new Map<string, Promise<EmbedderChoice>>();

/**
 * The GloVe static model through `@zerda/embeddings` (`TransformersEmbedder` with
 * `staticGloveModelPath()`), for English corpora. Arabic gets none: no Arabic or multilingual model
 * installs offline here, and the static model is English only. A missing model or package yields a
 * reason instead of an error, so the vector rows say why they did not run.
 */
export async function chooseEmbedder(language: string): Promise<EmbedderChoice> {
  if (language !== 'en') {
    return { embedder: undefined, modelId: 'none', fingerprint: 'none', reason: `no ${language === 'ar' ? 'Arabic' : language} embedding model is available offline (the GloVe static model is English only)` };
  }
  let choice = loaded.get('en');
  if (!choice) {
    choice = loadGloveEmbedder();
    loaded.set('en', choice);
  }
  return choice;
}

async function loadGloveEmbedder(): Promise<EmbedderChoice> {
  let module: Record<string, unknown>;
  try {
    module = (await import('@zerda/embeddings')) as Record<string, unknown>;
  } catch (error) {
    return { embedder: undefined, modelId: 'none', fingerprint: 'none', reason: `@zerda/embeddings could not be loaded (${(error as Error).message})` };
  }
  const TransformersEmbedder = module.TransformersEmbedder as (new (options: { modelId: string; localModelPath: string; batchSize?: number }) => Embedder) | undefined;
  const locate = module.staticGloveModelPath as ((directory?: string) => { modelId: string; localModelPath: string; directory: string; available: boolean }) | undefined;
  if (!TransformersEmbedder || !locate) {
    return { embedder: undefined, modelId: 'none', fingerprint: 'none', reason: '@zerda/embeddings does not export TransformersEmbedder and staticGloveModelPath yet' };
  }
  const location = process.env.ZERDA_MODELS_DIR ? locate() : locate(join(repositoryRoot(), '.cache', 'models'));
  if (!location.available) {
    return {
      embedder: undefined,
      modelId: location.modelId,
      fingerprint: 'none',
      reason: `the GloVe static model is not built (expected in ${location.directory}; run \`pnpm --filter @zerda/embeddings build:glove-model\`)`,
    };
  }
  const modelFile = join(location.directory, 'onnx', 'model_quantized.onnx');
  const stats = statSync(modelFile);
  const fingerprint = createHash('sha1').update(`${location.modelId}:${stats.size}:${stats.mtimeMs}:${readFileSync(join(location.directory, 'tokenizer.json')).length}`).digest('hex').slice(0, 12);
  const embedder = new TransformersEmbedder({ modelId: location.modelId, localModelPath: location.localModelPath, batchSize: 256 });
  return { embedder, modelId: location.modelId, fingerprint };
}

/** A query embedder over the model (kind `query`), as a plain Float32Array. */
export function queryEmbedderOf(embedder: Embedder | undefined): QueryEmbedder | undefined {
  if (!embedder) return undefined;
  return async (text: string) => {
    const [vector] = await embedder.embed([text], { kind: 'query' });
    return vector instanceof Float32Array ? vector : Float32Array.from(vector ?? []);
  };
}

/** The text a document is embedded as: its title, then its text. */
export function embeddingText(title: string, text: string): string {
  return title ? `${title}. ${text}` : text;
}

/**
 * Embeds `texts` as documents, reading and writing a cache file under `<repo>/.cache/bench` keyed
 * by the model fingerprint and a hash of the texts, so every system and every child process of a
 * run (and later runs) uses identical vectors without paying for them again. Returns the vectors
 * and the seconds spent embedding (0 when read from the cache).
 */
export async function embedDocuments(choice: EmbedderChoice, texts: readonly string[], onProgress?: (done: number) => void): Promise<{ vectors: Float32Array[]; seconds: number; cached: boolean }> {
  const embedder = choice.embedder;
  if (!embedder) throw new Error(`no embedder: ${choice.reason ?? 'unknown reason'}`);
  const hash = createHash('sha1');
  for (const text of texts) hash.update(text).update('\u0000');
  const key = `${choice.fingerprint}-${texts.length}-${hash.digest('hex').slice(0, 16)}`;
  const directory = join(cacheDirectory(), 'embeddings');
  const file = join(directory, `${key}.f32`);
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    const dimensions = bytes.readUInt32LE(0);
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 4, bytes.byteOffset + bytes.length));
    const vectors: Float32Array[] = [];
    for (let index = 0; index < texts.length; index++) vectors.push(all.subarray(index * dimensions, (index + 1) * dimensions));
    return { vectors, seconds: 0, cached: true };
  }
  const started = performance.now();
  const vectors: Float32Array[] = [];
  const batch = 2048;
  for (let start = 0; start < texts.length; start += batch) {
    const embedded = await embedder.embed(texts.slice(start, start + batch) as string[], { kind: 'document' });
    for (const vector of embedded) vectors.push(vector instanceof Float32Array ? vector : Float32Array.from(vector));
    onProgress?.(Math.min(texts.length, start + batch));
  }
  const seconds = (performance.now() - started) / 1000;
  const dimensions = vectors[0]?.length ?? 0;
  const bytes = Buffer.alloc(4 + vectors.length * dimensions * 4);
  bytes.writeUInt32LE(dimensions, 0);
  const view = new Float32Array(bytes.buffer, bytes.byteOffset + 4, vectors.length * dimensions);
  vectors.forEach((vector, index) => view.set(vector, index * dimensions));
  mkdirSync(directory, { recursive: true });
  writeFileSync(`${file}.tmp`, bytes);
  renameSync(`${file}.tmp`, file);
  return { vectors, seconds, cached: false };
}
