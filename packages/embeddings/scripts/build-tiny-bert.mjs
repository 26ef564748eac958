#!/usr/bin/env node
// Builds the test fixture `src/__fixtures__/tiny-bert/`: a one-layer BERT encoder (hidden size 32,
// 2 attention heads) with seeded random weights, written as ONNX (float32 `onnx/model.onnx` and an
// int8-weight `onnx/model_quantized.onnx`), plus a hand-made WordPiece tokenizer. transformers.js
// loads it through exactly the same path as a hub model (tokenizer + ONNX session + pooling), which
// is what the embedder's tests exercise offline. Its similarities mean nothing.
//
// With --cross-encoder it builds `src/__fixtures__/tiny-cross-encoder/` instead: the same encoder
// (same weights) with a BERT pooler (tanh of a dense layer over the [CLS] token) and a one-logit
// classifier, i.e. a `BertForSequenceClassification` like the MS MARCO cross-encoders, which
// transformers.js loads with AutoModelForSequenceClassification. Its relevance scores mean nothing.
//
//   node scripts/build-tiny-bert.mjs [--out DIR] [--cross-encoder]
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GraphBuilder, quantizeTensor, seededRandom } from './lib/onnx-builder.mjs';
import { buildVocabulary, writeBertFiles } from './lib/bert-files.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { out: { type: 'string' }, 'cross-encoder': { type: 'boolean', default: false } } });
const crossEncoder = args['cross-encoder'];
const name = crossEncoder ? 'tiny-cross-encoder' : 'tiny-bert';
const outDir = resolve(args.out ?? join(here, '..', 'src', '__fixtures__', name));

const HIDDEN = 32;
const HEADS = 2;
const HEAD_SIZE = HIDDEN / HEADS;
const INTERMEDIATE = 64;
const MAX_LENGTH = 128;

const ENGLISH = `the of and to in is was for on that with as by at from it an be this are or which
has had not have but were their one all also new more first can after other its into when time
only some two would there most people such made over many may between before like these years
where under world state during because through while three both then much well against city
country year being since used each large part high used later own same another under found
cat cats dog dogs kitten rug mat carpet sat sleep slept rested table desk room study drawing
car cars road drive bank money river water fish ocean boat ship sea sun moon star night day
machine learning model models vector vectors search retrieval query document documents text
context chunk chunks language arabic english word words sentence sentences embedding small tiny
test tests quick brown fox jumps lazy good bad happy sad fast slow big little book books read
library libraries house home school student students teacher computer science data network`
  .split(/\s+/)
  .filter(Boolean);
const ARABIC = ['في', 'من', 'على', 'إلى', 'كتاب', 'الكتاب', 'مكتبة', 'المكتبة', 'قرأ', 'طالب', 'مدرسة', 'بيت', 'ماء', 'شمس', 'قمر', 'لغة', 'العربية'];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const SUFFIXES = ['s', 'es', 'ed', 'ing', 'er', 'ly', 'ion', 'al'];
const PUNCTUATION = [...'.,?!:;\'"()-؟،؛'];
const tokens = buildVocabulary([
  ...ENGLISH,
  ...ARABIC,
  ...PUNCTUATION,
  ...LETTERS,
  ...LETTERS.map((c) => `##${c}`),
  ...SUFFIXES.map((s) => `##${s}`),
]);

const random = seededRandom(20240611);
/** Normal-ish values (sum of uniforms) scaled like a BERT initialiser. */
function randomTensor(size, scale = 0.2) {
  const values = new Float32Array(size);
  for (let i = 0; i < size; i++) values[i] = (random() + random() + random() - 1.5) * scale;
  return values;
}
function onesTensor(size) {
  return new Float32Array(size).fill(1);
}

const weights = {
  word: randomTensor(tokens.length * HIDDEN, 0.5),
  position: randomTensor(MAX_LENGTH * HIDDEN, 0.1),
  type: randomTensor(2 * HIDDEN, 0.1),
  embeddingGamma: onesTensor(HIDDEN),
  embeddingBeta: new Float32Array(HIDDEN),
  query: randomTensor(HIDDEN * HIDDEN),
  queryBias: randomTensor(HIDDEN, 0.02),
  key: randomTensor(HIDDEN * HIDDEN),
  keyBias: randomTensor(HIDDEN, 0.02),
  value: randomTensor(HIDDEN * HIDDEN),
  valueBias: randomTensor(HIDDEN, 0.02),
  attentionOut: randomTensor(HIDDEN * HIDDEN),
  attentionOutBias: randomTensor(HIDDEN, 0.02),
  attentionGamma: onesTensor(HIDDEN),
  attentionBeta: new Float32Array(HIDDEN),
  intermediate: randomTensor(HIDDEN * INTERMEDIATE),
  intermediateBias: randomTensor(INTERMEDIATE, 0.02),
  output: randomTensor(INTERMEDIATE * HIDDEN),
  outputBias: randomTensor(HIDDEN, 0.02),
  outputGamma: onesTensor(HIDDEN),
  outputBeta: new Float32Array(HIDDEN),
};
// Drawn after the encoder's weights, so that both fixtures share the same encoder.
const head = crossEncoder
  ? { pooler: randomTensor(HIDDEN * HIDDEN), poolerBias: randomTensor(HIDDEN, 0.02), classifier: randomTensor(HIDDEN, 0.5), classifierBias: randomTensor(1, 0.02) }
  : undefined;

/** The encoder graph; `quantized` stores the big matrices as int8 + DequantizeLinear. */
function buildGraph(quantized) {
  const g = new GraphBuilder(name);
  const inputIds = g.input('input_ids', 'int64', ['batch', 'sequence']);
  const attentionMask = g.input('attention_mask', 'int64', ['batch', 'sequence']);
  const tokenTypeIds = g.input('token_type_ids', 'int64', ['batch', 'sequence']);

  const matrix = (values, dims) => {
    if (!quantized) return g.constant(values, dims);
    const { quantized: q, scale } = quantizeTensor(values);
    return g.op('DequantizeLinear', [g.constant(q, dims), g.float([scale], []), g.constant(new Int8Array([0]), [])]);
  };
  const vector = (values) => g.constant(values, [values.length]);
  const layerNorm = (x, gamma, beta) => {
    const mean = g.op('ReduceMean', [x], { axes: [-1], keepdims: 1 });
    const centered = g.op('Sub', [x, mean]);
    const variance = g.op('ReduceMean', [g.op('Mul', [centered, centered])], { axes: [-1], keepdims: 1 });
    const std = g.op('Sqrt', [g.op('Add', [variance, g.float([1e-12], [])])]);
    return g.op('Add', [g.op('Mul', [g.op('Div', [centered, std]), vector(gamma)]), vector(beta)]);
  };
  const dense = (x, w, b, inSize, outSize) => g.op('Add', [g.op('MatMul', [x, matrix(w, [inSize, outSize])]), vector(b)]);

  // Embeddings: word + position (sliced to the sequence length) + token type.
  const words = g.op('Gather', [matrix(weights.word, [tokens.length, HIDDEN]), inputIds], { axis: 0 });
  const shape = g.op('Shape', [inputIds]);
  const sequenceLength = g.op('Slice', [shape, g.int64([1]), g.int64([2])]);
  const positions = g.op('Slice', [g.constant(weights.position, [MAX_LENGTH, HIDDEN]), g.int64([0]), sequenceLength, g.int64([0])]);
  const types = g.op('Gather', [g.constant(weights.type, [2, HIDDEN]), tokenTypeIds], { axis: 0 });
  const embedded = layerNorm(g.op('Add', [g.op('Add', [words, positions]), types]), weights.embeddingGamma, weights.embeddingBeta);

  // Self-attention with the padding mask as an additive bias.
  const heads = (x, perm) =>
    g.op('Transpose', [g.op('Reshape', [x, g.int64([0, 0, HEADS, HEAD_SIZE])])], { perm });
  const q = heads(dense(embedded, weights.query, weights.queryBias, HIDDEN, HIDDEN), [0, 2, 1, 3]);
  const k = heads(dense(embedded, weights.key, weights.keyBias, HIDDEN, HIDDEN), [0, 2, 3, 1]);
  const v = heads(dense(embedded, weights.value, weights.valueBias, HIDDEN, HIDDEN), [0, 2, 1, 3]);
  const scores = g.op('Mul', [g.op('MatMul', [q, k]), g.float([1 / Math.sqrt(HEAD_SIZE)], [])]);
  const mask = g.op('Unsqueeze', [g.op('Cast', [attentionMask], { to: 1 }), g.int64([1, 2])]);
  const maskBias = g.op('Mul', [g.op('Sub', [g.float([1], []), mask]), g.float([-10000], [])]);
  const probabilities = g.op('Softmax', [g.op('Add', [scores, maskBias])], { axis: -1 });
  const context = g.op('Reshape', [
    g.op('Transpose', [g.op('MatMul', [probabilities, v])], { perm: [0, 2, 1, 3] }),
    g.int64([0, 0, HIDDEN]),
  ]);
  const attended = layerNorm(
    g.op('Add', [embedded, dense(context, weights.attentionOut, weights.attentionOutBias, HIDDEN, HIDDEN)]),
    weights.attentionGamma,
    weights.attentionBeta,
  );

  // Feed-forward with exact GELU: 0.5 x (1 + erf(x / sqrt 2)).
  const hidden = dense(attended, weights.intermediate, weights.intermediateBias, HIDDEN, INTERMEDIATE);
  const erf = g.op('Erf', [g.op('Mul', [hidden, g.float([Math.SQRT1_2], [])])]);
  const gelu = g.op('Mul', [g.op('Mul', [hidden, g.float([0.5], [])]), g.op('Add', [erf, g.float([1], [])])]);
  const projected = dense(gelu, weights.output, weights.outputBias, INTERMEDIATE, HIDDEN);
  const normalized = layerNorm(g.op('Add', [attended, projected]), weights.outputGamma, weights.outputBeta);
  if (head) {
    // Sequence classification: pooler over the [CLS] token, then one relevance logit per pair.
    const cls = g.op('Gather', [normalized, g.int64([0], [])], { axis: 1 });
    const pooled = g.op('Tanh', [dense(cls, head.pooler, head.poolerBias, HIDDEN, HIDDEN)]);
    g.op('Identity', [dense(pooled, head.classifier, head.classifierBias, HIDDEN, 1)], {}, 'logits');
    g.output('logits', 'float', ['batch', 1]);
    return g.encode({ docString: 'zerda test fixture: random-weight one-layer BERT cross-encoder (meaningless scores)' });
  }
  g.op('Identity', [normalized], {}, 'last_hidden_state');
  g.output('last_hidden_state', 'float', ['batch', 'sequence', HIDDEN]);
  return g.encode({ docString: 'zerda test fixture: random-weight one-layer BERT (meaningless similarities)' });
}

writeBertFiles(outDir, {
  tokens,
  maxLength: MAX_LENGTH,
  config: {
    hidden_size: HIDDEN,
    num_hidden_layers: 1,
    num_attention_heads: HEADS,
    intermediate_size: INTERMEDIATE,
    hidden_act: 'gelu',
    ...(head ? { architectures: ['BertForSequenceClassification'], id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
  },
});
writeFileSync(join(outDir, 'onnx', 'model.onnx'), buildGraph(false));
writeFileSync(join(outDir, 'onnx', 'model_quantized.onnx'), buildGraph(true));
console.log(`${name} (${tokens.length} tokens, hidden ${HIDDEN}) written to ${outDir}`);
