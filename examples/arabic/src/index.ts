import { ArabicTextChunker } from '@zerda/chunks';
import { Analyzer, ContextEngine, defaultAnalyzer, explainResult, normalizeArabic, type ContextResult, type TemplateName } from '@zerda/context';
import { documents } from '@zerda/example-quickstart';
import { evaluationArticle } from './article.js';

export { evaluationArticle } from './article.js';

/**
 * One question ("what do precision and recall mean in retrieval evaluation?") written six ways a
 * user might type it. Every variant must be analysed to the same terms and find the same chunks.
 */
export const questionVariants: ReadonlyArray<{ label: string; query: string }> = [
  { label: 'plain', query: 'ما معنى الدقة والاستدعاء في تقييم الاسترجاع؟' },
  { label: 'full diacritics (harakat, shadda)', query: 'مَا مَعْنَى الدِّقَّةِ وَالِاسْتِدْعَاءِ فِي تَقْيِيمِ الِاسْتِرْجَاعِ؟' },
  { label: 'tatweel ـ', query: 'ما معنـــى الدقـــة والاستدعـــاء في تقييـــم الاسترجـــاع؟' },
  { label: 'hamza under alef (إ for ا)', query: 'ما معنى الدقة والإستدعاء في تقييم الإسترجاع؟' },
  { label: 'ي written for ى', query: 'ما معني الدقة والاستدعاء في تقييم الاسترجاع؟' },
  { label: 'Arabic punctuation ، ؛', query: 'ما معنى الدقة، والاستدعاء؛ في تقييم الاسترجاع؟' },
];

/** A mixed Arabic/English question. */
export const mixedQuery = 'How is nDCG computed، وما فائدته في ترتيب النتائج؟';

/** An Arabic question put to a knowledge base that holds only English text. */
export const mismatchQuery = 'كيف تعمل خوارزمية BM25 في ترتيب الوثائق؟';

/** Words that show what normalization and stemming fold together. */
export const foldedWords: readonly string[] = ['الاسْتِرْجَاع', 'الاستـــرجاع', 'إسترجاع', 'بالاسترجاع', 'مستوى', 'مستوي', 'المكتبة', 'بالمكتبات', 'ومكتبتها'];

export interface VariantOutcome {
  label: string;
  query: string;
  /** `normalizeArabic(query)`: diacritics and tatweel removed, alef variants and ى unified. */
  normalized: string;
  /** The analysed query terms (normalised, stopwords removed, light-stemmed). */
  terms: string[];
  result: ContextResult;
}

export interface ArabicExampleResult {
  variants: VariantOutcome[];
  mixed: ContextResult;
  /** The first question on an engine using the `markdown` template (Arabic `### المصدر:` headings). */
  markdown: ContextResult;
  /** The Arabic question on an English-only knowledge base: the guard warns `language_mismatch`. */
  mismatch: ContextResult;
  /** How many chunks ArabicTextChunker made of the article. */
  articleChunks: number;
  /** Terms per folded word: light stemmer (default), Snowball stemmer, no stemming. */
  folding: Array<{ word: string; normalized: string; light: string[]; snowball: string[]; unstemmed: string[] }>;
}

const rule = (character = '─') => character.repeat(100);

/**
 * Builds an engine over the Arabic article (chunked by ArabicTextChunker through `indexDocuments`)
 * plus the quickstart's bilingual documents (added incrementally with `add`).
 */
async function buildEngine(template: TemplateName): Promise<{ engine: ContextEngine; articleChunks: number }> {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 900, template } } });
  await engine.indexDocuments([evaluationArticle.text], new ArabicTextChunker({ size: 400 }), {
    docIds: [evaluationArticle.docId],
    sources: [evaluationArticle.source],
  });
  const articleChunks = engine.size;
  await engine.add(documents);
  return { engine, articleChunks };
}

/**
 * Arabic first: shows normalization and stemming, chunks a longer Arabic article with
 * ArabicTextChunker, runs one question written six ways (diacritics, tatweel, alef variants, ى/ي,
 * Arabic punctuation) and checks they all find the same chunks, runs a mixed Arabic/English
 * question, shows the Arabic template labels, and lets the guard flag an Arabic question that only
 * English text answers.
 */
export async function runArabicExample(print: (line: string) => void = console.log): Promise<ArabicExampleResult> {
  // 1. What normalization and stemming fold together.
  const snowball = new Analyzer({ arabic: { stemmer: 'snowball' } });
  const unstemmed = new Analyzer({ stem: false });
  const folding = foldedWords.map((word) => ({
    word,
    normalized: normalizeArabic(word),
    light: defaultAnalyzer.analyze(word),
    snowball: snowball.analyze(word),
    unstemmed: unstemmed.analyze(word),
  }));
  print(`${rule('═')}\n1. Normalization and stemming (normalizeArabic, Analyzer)\n${rule()}`);
  print('word → normalizeArabic → terms: light stemmer (default) | Snowball | no stemming');
  for (const entry of folding) {
    print(`  ${entry.word} → ${entry.normalized} → ${entry.light.join(' ')} | ${entry.snowball.join(' ')} | ${entry.unstemmed.join(' ')}`);
  }

  // 2. Index: an Arabic article chunked sentence-first, plus the quickstart corpus.
  const { engine, articleChunks } = await buildEngine('citations');
  print(`\n${rule('═')}\n2. Indexing\n${rule()}`);
  print(`ArabicTextChunker cut "${evaluationArticle.source}" into ${articleChunks} chunks; with the quickstart corpus the engine holds ${engine.size} chunks.`);

  // 3. One question, six spellings.
  print(`\n${rule('═')}\n3. One question, six spellings — same terms, same chunks\n${rule()}`);
  const variants: VariantOutcome[] = [];
  for (const { label, query } of questionVariants) {
    // useHistory: false — each variant is a fresh question, not a follow-up of the previous one.
    const result = await engine.run(query, { useHistory: false });
    variants.push({ label, query, normalized: normalizeArabic(query), terms: result.analysis.keywords, result });
    print(`${label}\n  query:      ${query}\n  normalized: ${normalizeArabic(query)}\n  terms:      ${result.analysis.keywords.join(' ')}\n  chunks:     ${result.chunks.map((chunk) => chunk.chunk.id).join(', ')}${result.fromCache ? '  (from cache: same effective query)' : ''}`);
  }
  const first = variants[0]!.result;
  print(`\nThe context for the first variant (citations template, Arabic labels):\n${rule()}\n${first.context}\n${rule()}\n${explainResult(first)}`);

  // 4. Mixed Arabic/English.
  print(`\n${rule('═')}\n4. Mixed Arabic/English question\n${rule()}`);
  const mixed = await engine.run(mixedQuery, { useHistory: false });
  print(`${mixed.context}\n${rule()}\n${explainResult(mixed)}`);

  // 5. The markdown template labels passages in the query's language.
  print(`\n${rule('═')}\n5. Markdown template: headings in the query's language\n${rule()}`);
  const { engine: markdownEngine } = await buildEngine('markdown');
  const markdown = await markdownEngine.run(questionVariants[0]!.query, { useHistory: false });
  print(markdown.context);

  // 6. An English-only knowledge base asked in Arabic.
  print(`\n${rule('═')}\n6. Arabic question, English-only knowledge base → the guard warns\n${rule()}`);
  const englishOnly = new ContextEngine({ config: { composer: { maxContextLength: 600 } } });
  await englishOnly.index(documents.filter((document) => document.metadata.lang === 'en'));
  const mismatch = await englishOnly.run(mismatchQuery, { useHistory: false });
  print(`${mismatch.context}\n${rule()}\n${explainResult(mismatch)}`);

  return { variants, mixed, markdown, mismatch, articleChunks, folding };
}
