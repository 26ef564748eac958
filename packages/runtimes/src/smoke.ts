/**
 * The one smoke script every runtime runs (Node.js, Bun, Deno, workerd, Chromium): it indexes a
 * small Arabic + English corpus and runs an Arabic, an English and a metadata-filtered query, once
 * counting characters and once counting cl100k tokens (whose rank table loads through `import()`),
 * and checks the contexts and their citations. It uses nothing but ECMAScript and the zerda module
 * it is given, so the same file runs beside a bundle in a browser or a worker and beside
 * `node_modules` in Node, Bun and Deno. Any failed check throws an Error naming the check.
 */
import type * as Zerda from '@zerda/context';

export type ZerdaModule = typeof Zerda;

/** What one query returned, for the report. */
export interface SmokeQueryReport {
  name: string;
  query: string;
  counter: string;
  /** The context itself: every runtime must build the same one. */
  context: string;
  /** Doc ids of the chunks in the context, in order. */
  docIds: string[];
  /** Sources listed by the citations template. */
  sources: string[];
  budget: { limit: number; used: number; unit: string };
  /** Reasons of the dropped chunks (duplicates, noise, budget). */
  dropped: string[];
  guardPassed: boolean;
}

export interface SmokeReport {
  runtime: string;
  queries: SmokeQueryReport[];
  /** Number of checks that passed (all of them, or the script threw). */
  checks: number;
}

interface SmokeDocument {
  docId: string;
  source: string;
  title: string;
  text: string;
  metadata: { lang: 'ar' | 'en'; topic: string; tenant: string };
}

/** Written for this smoke test; short enough to index in milliseconds anywhere. */
export const SMOKE_CORPUS: readonly SmokeDocument[] = [
  {
    docId: 'rag-ar',
    source: 'handbook/rag-ar.md',
    title: 'التوليد المعزز بالاسترجاع',
    metadata: { lang: 'ar', topic: 'rag', tenant: 'acme' },
    text: 'التوليد المعزَّز بالاسترجاع تقنيةٌ تمنح النموذجَ اللغوي الوثائقَ التي يحتاجها وقتَ السؤال، بدلاً من الاعتماد على ما حفظه أثناء التدريب. يبحث المسترجِع عن المقاطع ذات الصلة، ثم توضع في الموجِّه سياقاً يجيب منه النموذج ويستشهد به؛ فتقلّ الهلوسة وتبقى الإجابات محدَّثة.',
  },
  {
    // The same text without harakat and with a tatweel: an exact duplicate after normalisation.
    docId: 'rag-ar-copy',
    source: 'mirror/rag-ar.md',
    title: 'نسخة',
    metadata: { lang: 'ar', topic: 'rag', tenant: 'acme' },
    text: 'التوليد المعزز بالاسترجاع تقنية تمنح النموذج اللغوي الوثائق التي يحتاجها وقت السؤال، بدلا من الاعتماد على ما حفظه أثناء التدريب. يبحث المسترجع عن المقاطع ذات الصلة، ثم توضع في الموجه سياقا يجيب منه النموذج ويستشهد به؛ فتقل الهلوسة وتبقى الإجابات محدثة.',
  },
  {
    docId: 'arabic-nlp-ar',
    source: 'handbook/arabic-ar.md',
    title: 'معالجة النصوص العربية',
    metadata: { lang: 'ar', topic: 'arabic', tenant: 'globex' },
    text: 'تحتاج معالجة النصوص العربية إلى توحيد أشكال الألف وحذف التشكيل والتطويل قبل البحث، لأن الكلمة الواحدة تُكتب بصور كثيرة. ويفصل المحلل بين السوابق واللواحق، فتطابق كلمة "المكتبات" كلمة "مكتبة" في الفهرس.',
  },
  {
    docId: 'rag-en',
    source: 'handbook/rag.md',
    title: 'Retrieval-augmented generation',
    metadata: { lang: 'en', topic: 'rag', tenant: 'globex' },
    text: 'Retrieval-augmented generation gives a language model the documents it needs at question time instead of relying only on what it memorised during training. A retriever finds relevant passages, which are placed in the prompt as context; the model answers from that context and cites it.',
  },
  {
    docId: 'bm25-en',
    source: 'handbook/search.md',
    title: 'Keyword search with BM25',
    metadata: { lang: 'en', topic: 'search', tenant: 'acme' },
    text: 'BM25 ranks documents by how often the query terms occur in them, discounted by how common each term is across the collection and normalised by document length. The parameter k1 controls term-frequency saturation and b controls length normalisation.',
  },
  {
    docId: 'vectors-en',
    source: 'handbook/vectors.md',
    title: 'Vector search',
    metadata: { lang: 'en', topic: 'search', tenant: 'globex' },
    text: 'Vector search embeds queries and passages as vectors and returns the nearest neighbours by cosine similarity. Approximate indexes such as HNSW answer in milliseconds over millions of passages.',
  },
];

class Checks {
  count = 0;
  constructor(private readonly runtime: string) {}

  that(condition: boolean, what: string, detail?: unknown): void {
    if (!condition) throw new Error(`smoke check failed under ${this.runtime}: ${what}${detail === undefined ? '' : ` (got ${JSON.stringify(detail)})`}`);
    this.count++;
  }
}

/** The source list of a citations context: its title (`Sources` or `المصادر`) and the sources in order. */
function citations(context: string): { title: string | undefined; sources: string[] } {
  const match = /\n\n(Sources|المصادر):\n((?:\[\d+\] [^\n]+\n?)+)$/u.exec(context);
  if (!match) return { title: undefined, sources: [] };
  const sources = match[2]!
    .trim()
    .split('\n')
    .map((line) => /^\[\d+\] (\S+)/u.exec(line)?.[1] ?? '');
  return { title: match[1], sources };
}

/**
 * Runs the smoke checks with `zerda` (the `@zerda/context` module or its bundle) and returns what
 * each query produced. Throws on the first failed check.
 */
export async function smoke(zerda: ZerdaModule, runtime: string): Promise<SmokeReport> {
  const check = new Checks(runtime);
  const chunks = SMOKE_CORPUS.map((document) => ({ ...document, id: `${document.docId}#0`, position: { index: 0 } }));
  const queries: SmokeQueryReport[] = [];

  const counters: Array<{ name: string; counter: Zerda.LengthCounter; budget: number }> = [
    { name: 'chars', counter: zerda.charCounter, budget: 900 },
    // Its rank table is not loaded yet in a browser or a worker: the engine awaits counter.load().
    { name: 'cl100k_base', counter: zerda.tokenCounter('cl100k_base'), budget: 400 },
  ];

  for (const { name, counter, budget } of counters) {
    const engine = new zerda.ContextEngine({ lengthCounter: counter, config: { composer: { maxContextLength: budget, template: 'citations' } } });
    await engine.index(chunks);

    const record = (label: string, query: string, result: Zerda.ContextResult): SmokeQueryReport => {
      const report: SmokeQueryReport = {
        name: label,
        query,
        counter: name,
        context: result.context,
        docIds: result.chunks.map((used) => used.chunk.docId),
        sources: citations(result.context).sources,
        budget: { limit: result.budget.limit, used: result.budget.used, unit: result.budget.unit },
        dropped: result.dropped.map((drop) => drop.reason),
        guardPassed: result.guardPassed,
      };
      check.that(result.context.length > 0, `${label}/${name}: a non-empty context`);
      check.that(result.budget.used <= result.budget.limit, `${label}/${name}: the context fits its budget`, result.budget);
      check.that(counter(result.context) === result.budget.used, `${label}/${name}: budget.used is the counter's length of the context`, [counter(result.context), result.budget.used]);
      check.that(result.budget.unit === (name === 'chars' ? 'chars' : 'tokens'), `${label}/${name}: the budget unit`, result.budget.unit);
      // Citations: one numbered source per chunk, in the order of the chunks, and each passage's text in the context.
      const expectedTitle = result.analysis.language === 'ar' ? 'المصادر' : 'Sources';
      check.that(citations(result.context).title === expectedTitle, `${label}/${name}: the source list is titled ${expectedTitle}`, result.context.slice(-200));
      check.that(report.sources.length === result.chunks.length, `${label}/${name}: one cited source per chunk`, report.sources);
      check.that(report.sources.every((source, i) => source === result.chunks[i]!.chunk.source), `${label}/${name}: sources in chunk order`, report.sources);
      result.chunks.forEach((used, i) => {
        check.that(used.citation === i + 1, `${label}/${name}: ${used.chunk.id} is cited as [${i + 1}]`, used.citation);
        check.that(used.keptText.length > 0 && result.context.includes(used.keptText), `${label}/${name}: the kept text of ${used.chunk.id} is in the context`, used.keptText.slice(0, 40));
      });
      queries.push(report);
      return report;
    };

    const arabicQuery = 'ما هو التوليد المعزز بالاسترجاع؟';
    const arabicResult = await engine.run(arabicQuery);
    const arabic = record('arabic', arabicQuery, arabicResult);
    check.that(arabicResult.analysis.language === 'ar', 'arabic: the query is analysed as Arabic', arabicResult.analysis.language);
    check.that(zerda.isRightToLeft(arabicResult.context), 'arabic: the context reads right to left');
    check.that(arabic.docIds[0] === 'rag-ar', 'arabic: the Arabic RAG document comes first', arabic.docIds);
    check.that(!arabic.docIds.includes('rag-ar-copy'), 'arabic: the diacritic-free copy is dropped as a duplicate', arabic.docIds);
    check.that(arabic.dropped.includes('exact_duplicate'), 'arabic: an exact_duplicate drop is recorded', arabic.dropped);
    check.that(arabic.sources[0] === 'handbook/rag-ar.md', 'arabic: the first citation is handbook/rag-ar.md', arabic.sources);

    const englishQuery = 'How does BM25 rank documents by term frequency?';
    const englishResult = await engine.run(englishQuery);
    const english = record('english', englishQuery, englishResult);
    check.that(englishResult.analysis.language === 'en', 'english: the query is analysed as English', englishResult.analysis.language);
    check.that(english.docIds[0] === 'bm25-en', 'english: the BM25 document comes first', english.docIds);
    check.that(english.sources[0] === 'handbook/search.md', 'english: the first citation is handbook/search.md', english.sources);

    const filteredQuery = 'retrieval search documents البحث';
    const filteredResult = await engine.run(filteredQuery, { metadataFilters: { tenant: 'globex' } });
    const filtered = record('filtered', filteredQuery, filteredResult);
    check.that(filtered.docIds.length > 0, 'filtered: some globex chunks', filtered.docIds);
    check.that(filteredResult.chunks.every((used) => used.chunk.metadata.tenant === 'globex'), 'filtered: only chunks of tenant globex', filtered.docIds);
    check.that(filtered.sources.every((source) => !['handbook/rag-ar.md', 'mirror/rag-ar.md', 'handbook/search.md'].includes(source)), 'filtered: no citation of another tenant', filtered.sources);
  }
  return { runtime, queries, checks: check.count };
}
