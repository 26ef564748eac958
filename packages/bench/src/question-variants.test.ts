import { ContextEngine } from '@zerda/context';
import { charCounter } from '@zerda/text';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { answeredQueries } from './answer-context.js';
import { datasetsDirectory, listDatasets, loadNamedDataset, type BenchDataset } from './datasets.js';
import { ENGINE_BENCH_CONFIG } from './jobs.js';
import { documentsToChunks } from './systems/zerda-systems.js';

const directory = datasetsDirectory();
const DATASETS = ['arcd', 'tydiqa-goldp-en'];
const available = directory !== undefined && DATASETS.every((name) => listDatasets(directory).includes(name));

/** A deterministic stream of numbers in [0, 1) from a seed (the variants' random places). */
function stream(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const HARAKAT = ['\u064E', '\u064F', '\u0650', '\u0652', '\u0651', '\u064B', '\u064C', '\u064D'];
const ALEF_FORMS = ['أ', 'إ', 'آ'];

/**
 * Ways people write the same question that the engine must read as one: Arabic diacritics, tatweel,
 * hamza-seated alef forms, final yeh for alef maqsura, Arabic-Indic digits, a zero-width non-joiner,
 * the Arabic or the Latin question mark or none, letter case, runs of spaces and decomposed Unicode.
 */
const VARIANTS = {
  diacritics: (text: string, random: () => number) => text.replace(/[\u0621-\u064A]/gu, (letter) => (random() < 0.5 ? letter + HARAKAT[Math.floor(random() * HARAKAT.length)]! : letter)),
  tatweel: (text: string, random: () => number) => text.replace(/[\u0628-\u064A](?=[\u0628-\u064A])/gu, (letter) => (random() < 0.3 ? `${letter}\u0640` : letter)),
  alef: (text: string, random: () => number) => text.replace(/ا/gu, (letter) => (random() < 0.5 ? ALEF_FORMS[Math.floor(random() * ALEF_FORMS.length)]! : letter)),
  yeh: (text: string) => text.replace(/ى(?=[\s?؟]|$)/gu, 'ي'),
  digits: (text: string) => text.replace(/[0-9]/gu, (digit) => String.fromCharCode(0x0660 + Number(digit))),
  joiner: (text: string, random: () => number) => text.replace(/ /gu, (space) => (random() < 0.2 ? `\u200C${space}` : space)),
  mark: (text: string, random: () => number) => text.replace(/\s*[?؟]\s*$/u, '') + ['', '?', '؟', ' ?'][Math.floor(random() * 4)]!,
  case: (text: string, random: () => number) => (random() < 0.5 ? text.toLowerCase() : text.toUpperCase()),
  spaces: (text: string, random: () => number) => text.replace(/ /gu, (space) => (random() < 0.3 ? '   ' : space)),
  decomposed: (text: string) => text.normalize('NFD'),
} satisfies Record<string, (text: string, random: () => number) => string>;
type Variant = keyof typeof VARIANTS;

/**
 * Questions phrased in ways nobody tuned for start with the same question written differently. On the
 * held-out questions of ARCD and TyDi-en, `run()` gives the same context and the same chunks whatever
 * mix of the variants above the question is written with, at any budget: the analyzer folds them all
 * before anything is retrieved, valued or chosen.
 */
describe.skipIf(!available)(`run() reads a question written differently as the same question (needs ${DATASETS.join(' and ')} in ${directory ?? '$ZERDA_DATASETS or ../shared/datasets'})`, () => {
  const engines = new Map<string, { engine: ContextEngine; dataset: BenchDataset }>();
  beforeAll(async () => {
    for (const name of DATASETS) {
      const dataset = loadNamedDataset(directory!, name);
      const engine = new ContextEngine({ config: ENGINE_BENCH_CONFIG, lengthCounter: charCounter });
      await engine.index(documentsToChunks(dataset.documents));
      engines.set(name, { engine, dataset });
    }
  }, 300_000);

  for (const name of DATASETS) {
    it(`${name}: the same context for every written variant of a held-out question`, { timeout: 300_000 }, async () => {
      const { engine, dataset } = engines.get(name)!;
      const questions = answeredQueries(dataset)['held-out'];
      const names = Object.keys(VARIANTS) as Variant[];
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: questions.length - 1 }),
          fc.subarray(names, { minLength: 1 }),
          fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          fc.constantFrom(300, 1000, 4000),
          async (index, chosen, seed, budget) => {
            const original = questions[index]!.text;
            const random = stream(seed);
            const written = chosen.reduce((text, variant) => VARIANTS[variant](text, random), original);
            const options = { overrideBudget: budget, useHistory: false, recordTurn: false };
            const expected = await engine.run(original, options);
            const actual = await engine.run(written, options);
            expect(actual.context, `${JSON.stringify(original)} written ${JSON.stringify(written)} (${chosen.join(', ')})`).toBe(expected.context);
            expect(actual.chunks.map((used) => used.chunk.id)).toEqual(expected.chunks.map((used) => used.chunk.id));
          },
        ),
        { numRuns: 300, seed: 20261203 },
      );
    });
  }
});
