export { TransformersEmbedder } from './transformers-embedder.js';
export {
  modelSourceOptionsShape,
  transformersEmbedderOptionsSchema,
  type TransformersEmbedderOptions,
  type ResolvedEmbedderSettings,
  type ModelLoadProgress,
} from './transformers-embedder-options.js';
export { MODEL_PRESETS, STATIC_GLOVE_MODEL_ID, type ModelPreset } from './model-presets.js';
export {
  MODELS_DIRECTORY_VARIABLE,
  defaultModelsDirectory,
  staticGloveModelPath,
  findModelFiles,
  requiredModelFiles,
  type StaticGloveModelLocation,
  type ModelFileSearch,
} from './model-location.js';
export {
  CrossEncoderReranker,
  crossEncoderRerankerOptionsSchema,
  type CrossEncoderRerankerOptions,
  type ResolvedCrossEncoderSettings,
} from './cross-encoder-reranker.js';
