import { defaultAnalyzer, detectLanguage, scriptMix } from '@zerda/text';
import type { DocumentChunk, QueryAnalysis, ScoredChunk } from '@zerda/types';

/** A scored chunk for tests: id `doc#index`, source `doc.md` unless given. */
export function scored(id: string, text: string, extra: Partial<DocumentChunk> = {}, score = 1): ScoredChunk {
  const [docId = id, index = '0'] = id.split('#');
  return {
    chunk: { id, docId, text, source: `${docId}.md`, metadata: {}, position: { index: Number(index) }, ...extra },
    score,
    scores: { composite: score },
  };
}

/** A query analysis as the engine's analyzer would produce it (keywords from the default analyzer). */
export function analysisOf(query: string, answerType?: QueryAnalysis['answerType']): QueryAnalysis {
  return {
    ...(answerType ? { answerType } : {}),
    query,
    effectiveQuery: query,
    language: detectLanguage(query),
    scriptMix: scriptMix(query),
    keywords: [...new Set(defaultAnalyzer.analyze(query))],
    complexity: 'simple',
    intent: 'factual',
    suggestedBudget: 1500,
    suggestedChunks: 3,
  };
}

/** A counter that counts roughly like a subword tokenizer: one unit per 4 characters, plus one per word. */
export const tokenLikeCounter = Object.assign((text: string) => Math.ceil(text.length / 4) + (text.match(/\S+/g)?.length ?? 0), {
  unit: 'tokens',
});

/** Bidi control characters a composer must never add. */
export const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/gu;

export const ENGLISH_FRANCE =
  'Paris is the capital and most populous city of France. The city hosts many museums and monuments. The Louvre is the most visited art museum in the world. The Seine river flows through the city. Tourism is a major part of its economy.';
export const ENGLISH_GERMANY =
  'Berlin is the capital and largest city of Germany. Its history includes the division of the city during the Cold War. The Berlin Wall fell in 1989, and the city was reunified.';
export const ARABIC_EGYPT =
  'القاهرةُ هي عاصمةُ جمهوريةِ مصرَ العربية وأكبرُ مدنها. يعيش فيها أكثر من عشرين مليون نسمة في الإقليم الكبير. يَمُرُّ بها نهرُ النّيـــل، أطولُ أنهار العالم؟ نعم، وهو شريان الحياة في مصر.';
export const ARABIC_LIBRARY =
  'مكتبةُ الإسكندرية مكتبةٌ ومركزٌ ثقافي على ساحل البحر المتوسط. افتُتحت المكتبة الجديدة عام 2002 لإحياء ذكرى المكتبة القديمة. تضم المكتبة ملايين الكتب بلغات عدة، منها العربية والإنجليزية والفرنسية.';
export const MIXED =
  'يستخدم نموذج GPT-4 آلية الانتباه attention لفهم السياق. The model reads RTL text such as "مرحبا بالعالم" without reordering it.';
