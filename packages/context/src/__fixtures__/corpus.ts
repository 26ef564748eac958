import type { DocumentChunkInput } from '@zerda/types';

/** A small bilingual corpus for the engine's tests. */
export const corpus: DocumentChunkInput[] = [
  {
    docId: 'rag-en',
    source: 'docs/rag.md',
    title: 'Retrieval-augmented generation',
    metadata: { lang: 'en', topic: 'rag', tenant: 'acme' },
    timestamp: '2024-03-01',
    text: 'Retrieval-augmented generation gives a language model relevant documents at question time. A retriever finds passages related to the question and places them in the prompt as context, so the model answers from text the user can check.',
  },
  {
    docId: 'rag-ar',
    source: 'docs/rag-ar.md',
    title: 'التوليد المعزز بالاسترجاع',
    metadata: { lang: 'ar', topic: 'rag', tenant: 'acme' },
    text: 'التوليد المعزَّز بالاسترجاع تقنيةٌ تمنح النموذج اللغوي الوثائق ذات الصلة وقت السؤال. يبحث المسترجِع عن المقاطع المرتبطة بالسؤال ويضعها في الموجِّه بوصفها سياقاً، فيجيب النموذج من نصوص يمكن التحقق منها.',
  },
  {
    docId: 'bm25-en',
    source: 'docs/search.md',
    title: 'BM25 keyword search',
    metadata: { lang: 'en', topic: 'search', tenant: 'globex' },
    text: 'BM25 ranks documents by term frequency, inverse document frequency and document length normalisation. The parameter k1 controls term frequency saturation and b controls length normalisation.',
  },
  {
    docId: 'arabic-ar',
    source: 'docs/arabic.md',
    title: 'معالجة النصوص العربية',
    metadata: { lang: 'ar', topic: 'arabic', tenant: 'globex' },
    text: 'تحتاج النصوص العربية إلى تطبيع قبل الفهرسة: حذف الحركات والتطويل، وتوحيد أشكال الألف، وتجذيع خفيف يزيل السوابق مثل "ال" و"وال" واللواحق الشائعة حتى تتطابق صيغ الكلمة الواحدة.',
  },
  {
    docId: 'vectors-en',
    source: 'docs/vectors.md',
    title: 'Vector search',
    metadata: { lang: 'en', topic: 'search', tenant: 'acme' },
    text: 'Vector search embeds passages and queries as vectors and returns the nearest neighbours by cosine similarity. HNSW indexes answer approximate nearest neighbour queries quickly with high recall.',
  },
  {
    docId: 'chunking-en',
    source: 'docs/chunking.md',
    title: 'Chunking',
    metadata: { lang: 'en', topic: 'chunking', tenant: 'acme' },
    text: 'Documents are split into chunks before indexing. Good chunkers keep sections, paragraphs, lists and code blocks whole, and an overlap between neighbouring chunks keeps ideas that span a boundary retrievable.',
  },
];

/** A deterministic toy embedder over a tiny vocabulary, for wiring tests (not for quality). */
export function bagOfWordsEmbed(texts: string[]): number[][] {
  const vocabulary = ['retriev', 'generat', 'vector', 'search', 'bm25', 'chunk', 'عرب', 'استرجاع', 'model', 'document'];
  return texts.map((text) => {
    const lower = text.toLowerCase();
    const vector = vocabulary.map((term) => (lower.includes(term) ? 1 : 0) + 0.01);
    return vector;
  });
}
