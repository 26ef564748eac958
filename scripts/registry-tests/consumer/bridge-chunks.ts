// `chunks` for the README examples of the bridges (prepended to each example's code block).
const chunks = [
  { docId: 'bm25', source: 'docs/bm25.md', title: 'BM25', metadata: { lang: 'en', tenant: 'acme' }, text: 'BM25 ranks documents by term frequency, inverse document frequency and document length normalisation.' },
  { docId: 'rrf', source: 'docs/rrf.md', title: 'Fusion', metadata: { lang: 'en', tenant: 'acme' }, text: 'Reciprocal rank fusion scores passages by summing one over sixty plus the rank in each list.' },
  { docId: 'rag-ar', source: 'docs/rag-ar.md', title: 'التوليد المعزز', metadata: { lang: 'ar', tenant: 'acme' }, text: 'التوليد المعزز بالاسترجاع تقنية تمنح النموذج اللغوي الوثائق التي يحتاجها وقت السؤال.' },
];
