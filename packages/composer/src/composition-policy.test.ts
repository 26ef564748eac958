import { charCounter, splitSentences } from '@zerda/text';
import type { QueryAnalysis, ScoredChunk } from '@zerda/types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPOSITION_POLICY, SmartContextComposer } from './index.js';
import { keepRunsWhole } from './run-values.js';

const ENGLISH = ['river', 'delta', 'the', 'flows', 'north', 'Nile', 'Cairo', 'in', '1952', 'long', 'basin', 'water'];
const ARABIC = ['النهر', 'النِّيلِ', 'القاهرة', 'مكتبـــة', 'أحمد', 'إسلام', 'آمن', 'يجري', 'شمالاً', 'عام', '١٩٥٢'];
const ENDINGS = ['. ', '؟ ', '! ', '، ', '؛ ', ' '];

/** A passage of a few sentences in English, Arabic (harakat, tatweel, alef variants) or both. */
const passage = fc
  .array(
    fc.tuple(fc.array(fc.constantFrom(...ENGLISH, ...ARABIC), { minLength: 3, maxLength: 14 }), fc.constantFrom(...ENDINGS)).map(([words, end]) => words.join(' ') + end),
    { minLength: 1, maxLength: 8 },
  )
  .map((sentences) => sentences.join('').trim())
  .filter((text) => text.length > 0);

function scored(texts: readonly string[]): ScoredChunk[] {
  return texts.map((text, index) => ({
    chunk: { id: `c${index}`, docId: `d${index}`, text, source: `s${index}`, metadata: {}, position: { index: 0 } },
    score: 10 - index,
    scores: { keyword: 10 - index },
  }));
}

const question = (keywords: string[], language: 'en' | 'ar' = 'en'): QueryAnalysis =>
  ({ query: keywords.join(' '), effectiveQuery: keywords.join(' '), keywords, language, intent: 'question', answerType: 'other', complexity: 'simple' }) as unknown as QueryAnalysis;

describe('composition policy: the lead packing floor', () => {
  it('with margin 1 the value fit is never preferred: the context is lead packing of the ranking cut at a word boundary, as naive packing cuts', () => {
    fc.assert(
      fc.property(fc.array(passage, { minLength: 1, maxLength: 5 }), fc.integer({ min: 60, max: 1500 }), fc.subarray([...ENGLISH, ...ARABIC], { minLength: 1, maxLength: 4 }), (texts, budget, keywords) => {
        const chunks = scored(texts);
        const analysis = question(keywords, 'ar');
        const floor = new SmartContextComposer({}, { policy: { margin: 1 } }).compose(chunks, { budget, analysis });
        // Whole chunks in rank order, then at most one cut: a word-boundary prefix of its chunk.
        const ranks = floor.chunks.map((chunk) => chunk.rank);
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        floor.chunks.slice(0, -1).forEach((chunk) => expect(chunk.fit).toBe('whole'));
        const last = floor.chunks.at(-1);
        if (last && last.fit !== 'whole') {
          const prefix = last.keptText.endsWith('…') ? last.keptText.slice(0, -1) : last.keptText;
          expect(last.chunk.text.startsWith(prefix)).toBe(true);
          // Never inside a word: not between two letters, marks or digits.
          const inWord = /[\p{L}\p{M}\p{N}]/u;
          expect(prefix.length < last.chunk.text.length && inWord.test(prefix.at(-1) ?? '') && inWord.test(last.chunk.text[prefix.length]!)).toBe(false);
          // And as far as the budget allows: the next word (with the space before it) would not fit.
          const next = /^\s*\S+/u.exec(last.chunk.text.slice(prefix.length))?.[0] ?? '';
          expect(charCounter(floor.context) + charCounter(next)).toBeGreaterThan(budget - 1);
        }
        // It keeps everything the readable lead packing (compression off, cut at a sentence when that keeps
        // half as much) keeps: the same whole chunks, and the cut chunk at least as far (but for the one
        // character a sentence's final stop may take where the word cut pays its ellipsis).
        const readable = new SmartContextComposer().compose(chunks, { budget, analysis, compression: 'off' });
        const kept = (text: string) => (text.endsWith('…') ? text.slice(0, -1) : text);
        // Up to the first chunk the readable cut leaves out (a first passage too long for it, skipped
        // for the next ones): from there on it is not lead packing, and naive packing cuts that passage.
        const skipped = readable.chunks.findIndex((chunk, index) => chunk.rank !== index + 1);
        readable.chunks.slice(0, skipped < 0 ? undefined : skipped).forEach((chunk, index) => {
          const same = floor.chunks[index];
          if (chunk.fit === 'whole' && index < readable.chunks.length - 1) expect(same?.keptText).toBe(chunk.keptText);
          else if (same?.chunk.id === chunk.chunk.id) expect(kept(same.keptText).startsWith(kept(chunk.keptText).slice(0, -1))).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('the context holds the lead packing of share × budget, verbatim and contiguous', () => {
    fc.assert(
      fc.property(fc.array(passage, { minLength: 1, maxLength: 5 }), fc.integer({ min: 200, max: 1500 }), fc.double({ min: 0.1, max: 1, noNaN: true }), fc.subarray([...ENGLISH, ...ARABIC], { minLength: 1, maxLength: 4 }), (texts, budget, share, keywords) => {
        const chunks = scored(texts);
        const composer = new SmartContextComposer({}, { policy: { share, confidentShare: share } });
        const { context } = composer.compose(chunks, { budget, analysis: question(keywords) });
        // Whole leading sentences in rank order within share × budget, each passage paying its frame (the
        // default separator) and entering with at least minChunkLength characters.
        for (const lead of leadWithin(texts, share * budget)) expect(context).toContain(lead);
      }),
      { numRuns: 200 },
    );
  });

  it("with lead 'words' the context holds lead packing of share × budget up to a word boundary: the sentence the lead stops at is kept in part", () => {
    fc.assert(
      // Up to a share of 0.5: lead packing of the whole budget (kept where the value fit is not more
      // likely to hold the answer) cuts its last passage at a sentence boundary when that keeps at least
      // half of what a word-boundary cut would, so it too holds everything before half the budget.
      fc.property(fc.array(passage, { minLength: 1, maxLength: 5 }), fc.integer({ min: 100, max: 1500 }), fc.double({ min: 0.1, max: 0.5, noNaN: true }), fc.subarray([...ENGLISH, ...ARABIC], { minLength: 1, maxLength: 4 }), (texts, budget, share, keywords) => {
        const chunks = scored(texts);
        const composer = new SmartContextComposer({}, { policy: { share, confidentShare: share, lead: 'words' } });
        const { context } = composer.compose(chunks, { budget, analysis: question(keywords) });
        expect(charCounter(context)).toBeLessThanOrEqual(budget);
        for (const lead of leadWithin(texts, share * budget, 50, true)) expect(context).toContain(lead);
      }),
      { numRuns: 300 },
    );
  });

  it("a first sentence longer than the lead's share: 'sentences' keeps none of it, 'words' keeps its opening", () => {
    const first = 'The Nile, the longest river of Africa, rises south of the equator and flows north through eleven countries before it reaches the Mediterranean at a wide delta. It floods every summer.';
    const second = 'Cairo has many museums. The Egyptian Museum in Cairo holds the treasures of Tutankhamun. Cairo museums open at nine. The Coptic Museum of Cairo shows early Christian art. Cairo also has a museum of Islamic art with rare manuscripts.';
    const analysis = question(['cairo', 'museums']);
    // Margin 0: the value fit is used, so what differs is its lead (130 characters of a 260 budget).
    const compose = (lead: 'sentences' | 'words') => new SmartContextComposer({}, { policy: { share: 0.5, confidentShare: 0.5, margin: 0, lead } }).compose(scored([first, second]), { budget: 260, analysis }).context;
    expect(compose('sentences')).not.toContain('flows north');
    expect(compose('words').startsWith('The Nile, the longest river of Africa, rises south of the equator and flows north through eleven countries')).toBe(true);
    expect(compose('words')).toContain('Cairo has many museums. The Egyptian Museum in Cairo');
  });

  it("with lead 'words' a cut sentence may precede a sentence the value fit keeps later in its chunk: its ellipsis, then the gap marker", () => {
    const text =
      'The Nile, the longest river of Africa, rises south of the equator and flows north through eleven countries before it reaches the Mediterranean at a wide delta. It floods every summer. Many farmers live along its banks. Cairo museums hold the treasures of Tutankhamun and many other kings.';
    const composer = new SmartContextComposer({}, { policy: { share: 0.5, confidentShare: 0.5, margin: 0, lead: 'words' } });
    const result = composer.compose(scored([text, 'Other text about deserts and camels and dunes and wind.']), { budget: 200, analysis: question(['cairo', 'museums']) });
    expect(result.context).toMatch(/^The Nile, the longest river of Africa, rises [^…]*… \[…\] Cairo museums hold the treasures of Tutankhamun and many other kings\.$/u);
    expect(result.chunks[0]!.sentences!.map((sentence) => sentence.kept)).toEqual(['prefix', 'none', 'none', 'whole']);
    expect(charCounter(result.context)).toBeLessThanOrEqual(200);
  });

  it('spends the rest by value: a tight budget still finds the answer sentence after the lead', () => {
    const first = 'The river basin is long. It crosses many countries and deserts on its way. Its delta is wide and green. The Nile flows north into the sea at Alexandria.';
    const chunks = scored([first, 'Cairo is a large city with many museums and markets along its streets.']);
    const analysis = question(['nile', 'flows', 'north']);
    const { context } = new SmartContextComposer({}, { policy: { share: 0.3, confidentShare: 0.3 } }).compose(chunks, { budget: 150, analysis });
    expect(context.startsWith('The river basin is long.')).toBe(true);
    expect(context).toContain('The Nile flows north');
  });
});

/**
 * Whole leading sentences of `texts` in rank order within `room` characters, each passage paying the
 * default separator and entering with at least `minimum` characters (`minChunkLength`). With `words`,
 * the sentence the lead stops at is kept too up to the last space within the room (an ellipsis' worth
 * short), when that keeps `minimum` characters (20 once its passage has text kept).
 */
function leadWithin(texts: readonly string[], room: number, minimum = 50, words = false): string[] {
  const kept: string[] = [];
  let spent = 0;
  for (const text of texts) {
    const sentences = splitSentences(text);
    let end = 0;
    let pending = charCounter('\n\n---\n\n');
    for (const [index, sentence] of sentences.entries()) {
      const join = index === 0 ? 0 : charCounter(text.slice(sentences[index - 1]!.end, sentence.start));
      pending += charCounter(sentence.text) + join;
      if (end === 0 && charCounter(text.slice(sentences[0]!.start, sentence.end)) < minimum && index < sentences.length - 1) continue;
      if (spent + pending > room) {
        if (words) {
          // The cut starts where the lead stopped: a passage's opening, or the sentence after the last kept one.
          const start = end === 0 ? sentences[0]!.start : sentences.find((candidate) => candidate.start >= end)!.start;
          const frame = end === 0 ? charCounter('\n\n---\n\n') : charCounter(text.slice(end, start));
          const left = room - spent - frame - 1;
          const cut = [...text.slice(start)].slice(0, Math.max(0, Math.floor(left))).join('');
          const space = cut.lastIndexOf(' ');
          const prefix = space > 0 ? cut.slice(0, space).trimEnd() : '';
          if (charCounter(prefix) >= (end === 0 ? minimum : 20)) return [...kept, text.slice(0, start) + prefix];
        }
        return end > 0 ? [...kept, text.slice(0, end)] : kept;
      }
      spent += pending;
      pending = 0;
      end = sentence.end;
    }
    if (end > 0) kept.push(text.slice(0, end));
  }
  return kept;
}

describe('composition policy: the floor at the default settings', () => {
  const guaranteed = Math.min(COMPOSITION_POLICY.share, COMPOSITION_POLICY.confidentShare);

  it('the defaults reserve a lead: min(share, confidentShare) > 0', () => {
    expect(guaranteed).toBeGreaterThan(0);
  });

  /** Over random passages (Arabic, English, mixed), budgets and questions: `composer`'s context holds lead packing of `share` × budget. */
  const expectLeadKept = (composer: SmartContextComposer, share: number, numRuns: number) =>
    fc.assert(
      fc.property(
        fc.array(passage, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 100, max: 4000 }),
        fc.subarray([...ENGLISH, ...ARABIC], { minLength: 1, maxLength: 4 }),
        fc.constantFrom<'en' | 'ar'>('en', 'ar'),
        (texts, budget, keywords, language) => {
          const { context } = composer.compose(scored(texts), { budget, analysis: question(keywords, language) });
          for (const lead of leadWithin(texts, share * budget)) expect(context).toContain(lead);
        },
      ),
      { numRuns },
    );

  it('with no options, every question’s context holds the lead packing of min(share, confidentShare) × budget verbatim — the passages’ whole leading sentences in rank order', () => {
    expectLeadKept(new SmartContextComposer(), guaranteed, 300);
  });

  it('when the sentence model is unsure where the answer is (no sentence worth `confidence`), the lead kept is share × budget, the larger one', () => {
    expect(COMPOSITION_POLICY.share).toBeGreaterThan(COMPOSITION_POLICY.confidentShare);
    // Every value below sigmoid(-2) ≈ 0.12 < confidence, still ordered by the query's words; no margin,
    // so the value fit (not lead packing of the whole budget) is what is checked.
    expectLeadKept(new SmartContextComposer({}, { sentenceModel: { weights: { bias: -4, coverage: 2 } }, policy: { margin: 0 } }), COMPOSITION_POLICY.share, 200);
  });

  it('so an answer inside that lead is always in the context, wherever the sentence model puts its value', () => {
    fc.assert(
      fc.property(fc.array(passage, { minLength: 2, maxLength: 5 }), fc.integer({ min: 300, max: 3000 }), fc.subarray(ENGLISH, { minLength: 1, maxLength: 3 }), (texts, budget, keywords) => {
        // The answer leads the first passage; every other passage is stuffed with the query's words,
        // so the sentence model values them, not the answer.
        const answer = 'Zanzibar joined the union in the year 1964 after a revolution.';
        const bait = texts.slice(1).map((text) => `${keywords.join(' ')} ${text} ${keywords.join(' ')}.`);
        const chunks = scored([`${answer} ${texts[0]!}`, ...bait]);
        const { context } = new SmartContextComposer().compose(chunks, { budget, analysis: question(keywords) });
        if (leadWithin(chunks.map((chunk) => chunk.chunk.text), guaranteed * budget).some((lead) => lead.includes(answer))) expect(context).toContain(answer);
      }),
      { numRuns: 200 },
    );
  });
});

describe('composition policy: defaults', () => {
  it('defaults are documented values in [0, 1]', () => {
    for (const [key, value] of Object.entries(COMPOSITION_POLICY)) {
      if (key === 'measure') expect(['presence', 'sum']).toContain(value);
      else if (key === 'lead') expect(['sentences', 'words']).toContain(value);
      else expect(value as number).toBeGreaterThanOrEqual(0), expect(value as number).toBeLessThanOrEqual(1);
    }
  });
});

describe('composition policy: validation', () => {
  it('refuses unknown fields and out-of-range values with a ZerdaError naming the field', () => {
    expect(() => new SmartContextComposer({}, { policy: { share: 2 } })).toThrow(/options\.policy\.share/);
    expect(() => new SmartContextComposer({}, { policy: { margin: Number.NaN } })).toThrow(/options\.policy\.margin/);
    expect(() => new SmartContextComposer({}, { policy: { measure: 'mean' as never } })).toThrow(/options\.policy\.measure/);
    expect(() => new SmartContextComposer({}, { policy: { spread: 1 } as never })).toThrow(/options\.policy\.spread/);
    expect(() => new SmartContextComposer({}, { policy: 'lead' as never })).toThrow(/options\.policy/);
    expect(() => new SmartContextComposer({}, { policy: { lead: 'clauses' as never } })).toThrow(/options\.policy\.lead.*"sentences" or "words"/);
  });
});

describe('composition policy: runs kept whole in a composed context', () => {
  // The answer runs over three sentences; the middle one holds no query term, so alone it is worth little.
  const run = 'The Nile flood arrives in the valley in July each year. Farmers then wait for forty days while the canals fill and every village checks its dikes. The Nile flood leaves black silt behind.';
  const filler = 'Markets sell bread and fruit. Streets are busy at noon. Buses run late at night. Parks close at dusk. Shops open early.';
  const chunks = scored([`${run} ${filler}`]);
  const analysis = question(['nile', 'flood']);
  const compose = (bridge: number) => new SmartContextComposer({}, { policy: { share: 0, confidentShare: 0, margin: 0, bridge } }).compose(chunks, { budget: 240, analysis }).context;

  it('without a bridge the value fit elides the middle of the run', () => {
    expect(compose(0)).toContain('The Nile flood arrives in the valley in July each year. […] The Nile flood leaves black silt behind.');
    expect(compose(0)).not.toContain('Farmers then wait');
  });

  it('with a bridge the sentence between two high-scoring neighbours is kept: the run stays contiguous', () => {
    expect(compose(1)).toContain(run);
  });
});

describe('keepRunsWhole', () => {
  it('continuation: a later clause of a sentence is worth at least that share of the clause before it (chains along the sentence)', () => {
    expect(keepRunsWhole([0.1, 0.8, 0.05, 0.02, 0.3], [0, 0, 1, 2, 0], { continuation: 0.5, bridge: 0 })).toEqual([0.1, 0.8, 0.4, 0.2, 0.3]);
  });

  it('bridge: a sentence between two worth more is worth at least that share of the lesser, from the neighbours’ own values', () => {
    expect(keepRunsWhole([0.8, 0.1, 0.6, 0.05, 0.02], [0, 0, 0, 0, 0], { continuation: 0, bridge: 1 })).toEqual([0.8, 0.6, 0.6, 0.05, 0.02]);
  });

  it('never lowers a value, and is the identity with both at 0', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (values, continuation, bridge) => {
        const pieces = values.map((_, index) => index % 3);
        const result = keepRunsWhole([...values], pieces, { continuation, bridge });
        result.forEach((value, index) => expect(value).toBeGreaterThanOrEqual(values[index]!));
        expect(keepRunsWhole([...values], pieces, { continuation: 0, bridge: 0 })).toEqual(values);
      }),
    );
  });
});
