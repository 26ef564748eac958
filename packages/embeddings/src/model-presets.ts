/**
 * How a known model must be used: its pooling, its query/document prefixes and what it is good for.
 * `TransformersEmbedder` applies the preset of a known `modelId` unless the caller overrides a
 * setting, so `new TransformersEmbedder({ modelId: 'Xenova/multilingual-e5-small' })` embeds the way
 * the model was trained to be used.
 */
export interface ModelPreset {
  pooling: 'mean' | 'cls';
  normalize: boolean;
  /** Prepended to texts embedded with `kind: 'query'`. */
  queryPrefix: string;
  /** Prepended to texts embedded with `kind: 'document'`. */
  documentPrefix: string;
  /** Output size (informational: the embedder measures the real size when it loads). */
  dimensions: number;
  languages: 'multilingual' | 'en';
  description: string;
}

/** The id under which `build:glove-model` writes zerda's offline English static model. */
export const STATIC_GLOVE_MODEL_ID = 'zerda/glove-sg-100d';

/**
 * Presets of the models zerda recommends (hub ids load with network access once, then offline from
 * the cache) and of zerda's own offline static model.
 */
export const MODEL_PRESETS: Readonly<Record<string, Readonly<ModelPreset>>> = Object.freeze({
  'Xenova/multilingual-e5-small': {
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    dimensions: 384,
    languages: 'multilingual',
    description: 'multilingual E5 (about 100 languages, Arabic included); the recommended default for Arabic or mixed corpora',
  },
  'Xenova/multilingual-e5-base': {
    pooling: 'mean',
    normalize: true,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
    dimensions: 768,
    languages: 'multilingual',
    description: 'larger multilingual E5: better quality, about 3x slower than the small one',
  },
  'Xenova/paraphrase-multilingual-MiniLM-L12-v2': {
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    dimensions: 384,
    languages: 'multilingual',
    description: 'multilingual sentence-transformers paraphrase model (50+ languages, Arabic included), no prefixes',
  },
  'Xenova/all-MiniLM-L6-v2': {
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    dimensions: 384,
    languages: 'en',
    description: 'small, fast English sentence-transformers model',
  },
  'Xenova/bge-small-en-v1.5': {
    pooling: 'cls',
    normalize: true,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
    dimensions: 384,
    languages: 'en',
    description: 'strong small English retrieval model (CLS pooling, instruction prefix on queries only)',
  },
  [STATIC_GLOVE_MODEL_ID]: {
    pooling: 'mean',
    normalize: true,
    queryPrefix: '',
    documentPrefix: '',
    dimensions: 100,
    languages: 'en',
    description: 'zerda offline static model: frequency-weighted average of GloVe word vectors (weak, but real and offline)',
  },
});
