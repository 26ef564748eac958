/**
 * @zerda/composer — the context a model reads: ranked chunks fitted into a character or token
 * budget with templates, ordering, query-focused compression, citations and stats.
 */
export { SmartContextComposer, retrievalStrength, COMPOSITION_POLICY } from './smart-context-composer.js';
export type { ComposerConfigInput, CompositionPolicy, SmartComposeOptions, SmartContextComposerOptions } from './smart-context-composer.js';
export { ARABIC_LABELS, ENGLISH_LABELS, TEMPLATE_NAMES, escapeXmlAttribute } from './templates.js';
export type { ComposerPassage, TemplateLabels } from './templates.js';
export { contextStats, countPassages, counterUnit } from './context-stats.js';
/** The one word-boundary truncation of zerda (from @zerda/text), re-exported for composer users. */
export { truncateAtWordBoundary } from '@zerda/text';
export { sentenceFeatures, featureRecord, modelProbability, analyzeChunk, CUE_TYPES, FEATURE_NAMES, type SentenceModel, type CandidateSignal, type ChunkAnalysis } from './sentence-value.js';
export { SENTENCE_MODEL } from './sentence-model.js';
export { answerCues, type AnswerCues } from './answer-cues.js';
