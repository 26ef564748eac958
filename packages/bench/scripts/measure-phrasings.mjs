// Answer-in-context when the held-out questions are phrased in ways nobody tuned for (a report, not a test).
//   node scripts/measure-phrasings.mjs [arcd tydiqa-goldp-en ...] [--units chars,cl100k]
// Each phrasing rewrites every held-out question, then the engine (`ContextEngine.run()`, the bench's
// configuration, keyword retrieval) is read against naive packing of the BM25 top 10 *of the rewritten
// question*, at each budget — the floor, for a question as a user might type it:
// - `original`: as written in the dataset;
// - `polite`: wrapped in a request ("Can you tell me …", "هل يمكنك أن تخبرني …");
// - `wrapped`: a request before and an instruction after ("I'd like to know: … Please answer briefly.",
//   "أريد أن أعرف: … أجب باختصار من فضلك.");
// - `keywords`: a search-box query — question words, function words and question marks removed
//   ("When was Dubai founded?" → "Dubai founded").
// Run `pnpm --filter @zerda/bench... build` first.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ContextEngine } from '@zerda/context';
import { tokenCounter } from '@zerda/context-core';
import { KeywordRetriever, answerInContext } from '@zerda/retriever';
import { charCounter } from '@zerda/text';
import { answeredQueries } from '../dist/answer-context.js';
import { packNaively } from '../dist/context-metrics.js';
import { datasetsDirectory, loadDataset } from '../dist/datasets.js';
import { ENGINE_BENCH_CONFIG } from '../dist/jobs.js';
import { documentContent } from '../dist/systems/search-system.js';
import { documentsToChunks } from '../dist/systems/zerda-systems.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { units: { type: 'string', default: 'chars,cl100k' } } });
const names = positionals.length > 0 ? positionals : ['arcd', 'tydiqa-goldp-en'];
const arabic = (text) => /[\u0600-\u06FF]/u.test(text);
const ENGLISH_FUNCTION_WORDS = new Set(['what', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'which', 'is', 'are', 'was', 'were', 'did', 'does', 'do', 'the', 'a', 'an', 'of', 'in', 'to', 'for', 'on', 'at', 'by']);
const ARABIC_FUNCTION_WORDS = new Set(['من', 'ما', 'ماذا', 'متى', 'أين', 'اين', 'كيف', 'لماذا', 'كم', 'هل', 'هو', 'هي', 'في', 'على', 'إلى', 'الى', 'عن', 'التي', 'الذي', 'أي', 'اي']);
const PHRASINGS = {
  original: (text) => text,
  polite: (text) => (arabic(text) ? `هل يمكنك أن تخبرني ${text}` : `Can you tell me ${text[0].toLowerCase()}${text.slice(1)}`),
  wrapped: (text) => (arabic(text) ? `أريد أن أعرف: ${text} أجب باختصار من فضلك.` : `I'd like to know: ${text} Please answer briefly.`),
  keywords: (text) =>
    text
      .replace(/[?؟]/gu, ' ')
      .split(/\s+/u)
      .filter((word) => word !== '' && !(arabic(word) ? ARABIC_FUNCTION_WORDS : ENGLISH_FUNCTION_WORDS).has(word.toLowerCase()))
      .join(' '),
};
const units = values.units.split(',');
const grids = [
  ...(units.includes('chars') ? [{ label: 'chars', counter: charCounter, budgets: [300, 500, 1000, 2000] }] : []),
  ...(units.includes('cl100k') ? [{ label: 'cl100k', counter: tokenCounter('cl100k_base'), budgets: [100, 250, 500, 1000] }] : []),
];
const percent = (count, total) => (100 * count / total).toFixed(1);
for (const name of names) {
  const dataset = loadDataset(join(datasetsDirectory(), name));
  const questions = answeredQueries(dataset)['held-out'];
  const documents = new Map(dataset.documents.map((document) => [document.id, document]));
  const chunks = documentsToChunks(dataset.documents);
  const keyword = new KeywordRetriever();
  await keyword.index(chunks);
  for (const { label, counter, budgets } of grids) {
    const engine = new ContextEngine({ config: ENGINE_BENCH_CONFIG, lengthCounter: counter });
    await engine.index(chunks);
    for (const [phrasing, rewrite] of Object.entries(PHRASINGS)) {
      const cells = [];
      for (const budget of budgets) {
        let engineHolds = 0;
        let naiveHolds = 0;
        for (const question of questions) {
          const text = rewrite(question.text);
          const answers = dataset.answers.get(question.id);
          const top = (await keyword.retrieve(text, { topK: 10 })).map((hit) => hit.chunk.docId).filter((id) => documents.has(id));
          if (answerInContext(packNaively(top.map((id) => documentContent(documents.get(id))), budget, counter), answers)) naiveHolds += 1;
          const result = await engine.run(text, { overrideBudget: budget, useHistory: false, recordTurn: false });
          if (answerInContext(result.context, answers)) engineHolds += 1;
        }
        const delta = (100 * (engineHolds - naiveHolds)) / questions.length;
        cells.push(`@${budget} ${percent(engineHolds, questions.length)} vs ${percent(naiveHolds, questions.length)} (${delta >= 0 ? '+' : ''}${delta.toFixed(1)})`);
      }
      console.log(`${name} held-out (${questions.length}) ${label} ${phrasing}: ${cells.join(' · ')}`);
    }
  }
}
