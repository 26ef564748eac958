import type { ExampleDocument } from '@zerda/example-quickstart';

/**
 * Two internal notes written for this example, in English and Arabic, that mention the internal
 * code name of a project — the kind of text a deny-list guard keeps away from the model.
 */
export const internalNotes: ExampleDocument[] = [
  {
    docId: 'roadmap-internal',
    source: 'internal/roadmap.md',
    title: 'Roadmap (internal)',
    metadata: { lang: 'en', topic: 'roadmap', year: 2025 },
    text: 'Project Falcon is the internal name of the PostgreSQL backend work. The pgvector backend ships in the second quarter, after the HNSW store, and runs embedded in PGlite for tests. Customers must not hear the code name before the announcement.',
  },
  {
    docId: 'roadmap-internal-ar',
    source: 'internal/roadmap-ar.md',
    title: 'خطة العمل (داخلية)',
    metadata: { lang: 'ar', topic: 'roadmap', year: 2025 },
    text: 'مشروعُ الصَّقر هو الاسم الداخلي لأعمال دعم PostgreSQL. يصدر دعم pgvector في الربع الثاني بعد مخزن HNSW، ويعمل داخل PGlite في الاختبارات. لا يُذكر اسم المشروع للعملاء قبل الإعلان الرسمي.',
  },
];
