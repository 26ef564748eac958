import { toDocumentChunk, type DocumentChunkInput, type ScoredChunk } from '@zerda/types';

/** A scored chunk for tests: `id` doubles as docId unless given. */
export function scored(id: string, text: string, score = 1, extra: Partial<DocumentChunkInput> = {}): ScoredChunk {
  return { chunk: toDocumentChunk({ id, docId: extra.docId ?? id, text, ...extra }), score, scores: {} };
}

export const ENGLISH_PARAGRAPH =
  'Retrieval augmented generation combines a search step with a language model. The retriever finds passages that answer the question, and the model writes an answer grounded in them.';

export const ARABIC_PARAGRAPH =
  'التَّعَلُّمُ الآلِيُّ هو فرعٌ من الذكاء الاصطناعي يهتم ببناء أنظمة تتعلم من البيانات، وتحسّن أداءها مع الخبرة دون أن تُبرمَج صراحةً لكل مهمة.';
