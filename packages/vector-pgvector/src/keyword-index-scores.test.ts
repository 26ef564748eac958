import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { defaultAnalyzer } from '@zerda/text';
import { bm25Contribution, chunkNorm, inverseDocumentFrequency, lengthNormalization, termWeight } from '@zerda/retriever';
import { loadBeirDataset, locateDatasets } from '@zerda/retriever/datasets';
import type { DocumentChunk } from '@zerda/types';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPGlite, uniqueCollection } from './__fixtures__/databases.js';
import { SERVER_SKIP_REASON, SERVER_URL, serverPool } from './__fixtures__/server.js';
import { analyseChunk, queryTerms, type Bm25Parameters } from './keyword-index.js';
import { PgVectorStore } from './pgvector-vector-store.js';
import type { SqlConnection } from './sql-client.js';

// The BM25 formula has one definition, @zerda/retriever's scoring.ts; keyword-index.ts computes it
// again in SQL (bm25ScoresSql) so PostgreSQL can rank. This test holds the SQL copy to the
// formula score for score: every chunk the SQL scores, with every score within float rounding of
// the one the exported formula functions give from the same analysis and collection statistics.

/** A small real corpus, one passage a line (id | title | text): Arabic and English, with titles, repeated and shared words. */
const PASSAGES = `
en-1 | Public libraries | A public library lends books, newspapers and recordings to the people of a town, and its librarians help readers find what they need.
en-2 | The Library of Alexandria | The Library of Alexandria was one of the largest libraries of the ancient world; scholars copied and studied manuscripts there.
en-3 |  | Vaccines train the immune system to recognise a virus, so that a later infection is fought off quickly.
en-4 | Immune response | The immune response to an infection involves antibodies and T cells; a vaccine triggers the response without the disease.
en-5 |  | Libraries digitise old books so that readers anywhere can study them; digital libraries keep millions of scanned pages.
en-6 | Desert climate | Deserts receive little rain; their temperature falls sharply at night because dry air holds little heat.
ar-1 | المكتبات العامة | تعير المكتبة العامة الكتب والصحف لسكان المدينة، ويساعد أمناء المكتبة القراء في العثور على ما يحتاجون إليه.
ar-2 | مكتبة الإسكندرية | كانت مكتبة الإسكندرية من أكبر مكتبات العالم القديم، وفيها نسخ العلماء المخطوطات ودرسوها.
ar-3 |  | تدرب اللقاحات جهاز المناعة على التعرف إلى الفيروس، فيقاوم الجسم العدوى اللاحقة بسرعة.
ar-4 | الاستجابة المناعية | تشمل الاستجابة المناعية للعدوى الأجسام المضادة والخلايا التائية، ويحفز اللقاح الاستجابة دون المرض.
ar-5 |  | تقوم المكتبات برقمنة الكتب القديمة ليتمكن القراء في كل مكان من دراستها، وتحفظ المكتبات الرقمية ملايين الصفحات.
ar-6 | مناخ الصحراء | تتلقى الصحارى القليل من المطر، وتنخفض درجة حرارتها ليلا لأن الهواء الجاف لا يحتفظ بالحرارة.
`
  .trim()
  .split('\n')
  .map((line) => {
    const [id, title, text] = line.split(' | ') as [string, string, string];
    return { id, text, ...(title ? { title } : {}) };
  });

const QUERIES = [
  'public library books',
  'libraries library readers',
  'immune response to a vaccine',
  'desert rain at night',
  'Alexandria manuscripts scholars',
  'المكتبة العامة',
  'مكتبة مكتبات الكتب',
  'اللقاح والمناعة والعدوى',
  'الصحراء المطر',
  'library المكتبة vaccine اللقاح',
  'nothing matches xylophone',
];

const PARAMETER_SETS: Bm25Parameters[] = [
  { k1: 1.2, b: 0.75, titleWeight: 1 },
  { k1: 2, b: 0.3, titleWeight: 2.5 },
  { k1: 0.5, b: 1, titleWeight: 0.5 },
];

function toChunks(passages: ReadonlyArray<{ id: string; title?: string; text: string }>): DocumentChunk[] {
  return passages.map((passage, index) => ({
    id: passage.id,
    docId: passage.id,
    text: passage.text,
    ...(passage.title ? { title: passage.title } : {}),
    source: 'bm25-formula',
    metadata: {},
    position: { index },
    embedding: [1],
  }));
}

/** Every chunk holding a query term, scored with the formula of @zerda/retriever from the same analysis the store indexes. */
function formulaScores(chunks: readonly DocumentChunk[], query: string, parameters: Bm25Parameters): Map<string, number> {
  const analyses = chunks.map((chunk) => analyseChunk(defaultAnalyzer, chunk.text, chunk.title));
  const live = chunks.length;
  const totalLength = analyses.reduce((sum, analysis) => sum + analysis.textLength + parameters.titleWeight * analysis.titleLength, 0);
  const normalization = lengthNormalization(parameters, totalLength / live);
  const { terms, weights } = queryTerms(defaultAnalyzer, query);
  const scores = new Map<string, number>();
  terms.forEach((term, t) => {
    const frequencyOf = (i: number): number => {
      const at = analyses[i]!.terms.indexOf(term);
      return at < 0 ? 0 : analyses[i]!.textFrequencies[at]! + parameters.titleWeight * analyses[i]!.titleFrequencies[at]!;
    };
    const holders = analyses.flatMap((analysis, i) => (analysis.terms.includes(term) && (parameters.titleWeight > 0 || frequencyOf(i) > 0) ? [i] : []));
    if (holders.length === 0) return;
    const weight = termWeight(inverseDocumentFrequency(live, holders.length), weights[t]!, parameters.k1);
    for (const i of holders) {
      const frequency = frequencyOf(i);
      if (!(frequency > 0)) continue;
      const norm = chunkNorm(normalization, analyses[i]!.textLength, analyses[i]!.titleLength, parameters.titleWeight);
      const id = chunks[i]!.id;
      scores.set(id, (scores.get(id) ?? 0) + bm25Contribution(weight, frequency, norm));
    }
  });
  return scores;
}

async function expectSqlAgrees(connection: SqlConnection, chunks: DocumentChunk[], queries: readonly string[]): Promise<number> {
  const store = new PgVectorStore({ connection, collection: uniqueCollection('bm25_formula'), dimensions: 1, hnsw: false, includeEmbeddings: false });
  let compared = 0;
  try {
    await store.add(chunks);
    for (const bm25 of PARAMETER_SETS) {
      for (const query of queries) {
        const expected = formulaScores(chunks, query, bm25);
        const hits = await store.textSearch(query, { k: chunks.length, bm25 });
        const context = `query "${query}" with ${JSON.stringify(bm25)}`;
        expect(new Set(hits.map((hit) => hit.chunk.id)), context).toEqual(new Set(expected.keys()));
        for (const hit of hits) {
          const score = expected.get(hit.chunk.id)!;
          // Summation order differs (SQL's sum() against query-term order): a few ulps apart at most.
          expect(Math.abs(hit.score - score), `${context}, chunk ${hit.chunk.id}: SQL ${hit.score}, formula ${score}`).toBeLessThanOrEqual(1e-10 * Math.max(1, score));
          compared += 1;
        }
      }
    }
  } finally {
    await store.drop();
    await store.close();
  }
  return compared;
}

describe('the SQL copy of BM25 (keyword-index.ts) agrees with @zerda/retriever’s formula score for score', () => {
  const passages = toChunks(PASSAGES);

  describe('PGlite', () => {
    let database: PGlite;
    beforeAll(async () => {
      database = await startPGlite();
    });
    afterAll(async () => {
      await database?.close();
    });

    it('on an Arabic and English corpus with titles, for three parameter sets', async () => {
      expect(await expectSqlAgrees(database, passages, QUERIES)).toBeGreaterThan(50);
    });
  });

  describe.skipIf(!SERVER_URL)(`PostgreSQL server${SERVER_SKIP_REASON ? ` (skipped: ${SERVER_SKIP_REASON})` : ''}`, () => {
    let pool: pg.Pool;
    beforeAll(() => {
      pool = serverPool(2);
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('on an Arabic and English corpus with titles, for three parameter sets', async () => {
      expect(await expectSqlAgrees(pool, passages, QUERIES)).toBeGreaterThan(50);
    });

    // 150 documents and 15 queries each of ARCD (Arabic) and SciFact (English) from ../shared/datasets, when present.
    const root = locateDatasets(process.cwd());
    const datasets = ['arcd', 'beir-scifact'].filter((name) => root !== undefined && existsSync(join(root, name, 'queries.jsonl')));
    it.skipIf(datasets.length < 2)('on the first documents and queries of ARCD and SciFact', async () => {
      const loaded = datasets.map((name) => loadBeirDataset(join(root!, name)));
      const corpus = toChunks(loaded.flatMap((dataset) => dataset.corpus.slice(0, 150).map((document) => ({ id: `${dataset.name}-${document.id}`, text: document.text, ...(document.title ? { title: document.title } : {}) }))));
      const queries = loaded.flatMap((dataset) => dataset.queries.slice(0, 15).map((query) => query.text));
      expect(await expectSqlAgrees(pool, corpus, queries)).toBeGreaterThan(200);
    }, 120_000);
  });
});
