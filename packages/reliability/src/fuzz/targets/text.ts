import {
  Analyzer,
  charCounter,
  detectLanguage,
  fnv1a,
  foldDigits,
  isArabic,
  isRightToLeft,
  isStopword,
  normalizeArabic,
  normalizeText,
  resolveAnalyzerOptions,
  scriptMix,
  snowballStemArabic,
  splitSentences,
  stemArabic,
  stemEnglish,
  tokenScript,
  tokenize,
  truncateAtWordBoundary,
  visitTokens,
  wordCounter,
  words,
} from '@zerda/text';
import type { Generator } from '../generator.js';
import { expect, expectOffsets, expectWithinBudget, target, type FuzzTarget } from '../target.js';

const analyzerOptions = (generator: Generator) =>
  generator.options({
    stem: () => (generator.chance(0.9) ? generator.chance(0.5) : generator.hostile()),
    stopwords: () => generator.chance(0.5),
    arabic: () => generator.options({ stemmer: () => generator.pick(['light', 'snowball', 'none', 'porter']), tehMarbuta: () => generator.chance(0.5), hamzaSeats: () => generator.chance(0.5) }),
    english: () => generator.options({ stemmer: () => generator.pick(['porter2', 'none', 'lancaster']) }),
    minTokenLength: () => generator.number(0, 4),
  });

/** Entry points of @zerda/text. */
export const textTargets: FuzzTarget[] = [
  target('text.normalizeText', async (g, c) => {
    const text = g.text();
    const options = g.chance(0.2) ? g.options({ tehMarbuta: () => g.chance(0.5), hamzaSeats: () => g.chance(0.5) }) : undefined;
    const once = await c.call(() => normalizeText(text as string, options as never));
    expect(typeof once === 'string', 'normalizeText returned a non-string');
    if (once.length < 20_000) expect(normalizeText(once, options as never) === once, 'normalizeText is not idempotent');
  }, 2),
  target('text.normalizeArabic', async (g, c) => {
    await c.call(() => normalizeArabic(g.text() as string, (g.chance(0.2) ? g.options({ tehMarbuta: () => true }) : undefined) as never));
  }),
  target('text.foldDigits', async (g, c) => {
    await c.call(() => foldDigits(g.text() as string));
  }),
  target('text.tokenize', async (g, c) => {
    const text = g.text();
    const tokens = await c.call(() => tokenize(text as string));
    expectOffsets(text as string, tokens, 'tokenize');
    expect(tokens.every((token) => token.text.length > 0), 'tokenize produced an empty token');
    const visited: Array<{ start: number; end: number }> = [];
    await c.call(() => visitTokens(text as string, (g.chance(0.05) ? g.pick([null, 3, 'visit', {}]) : (start: number, end: number) => visited.push({ start, end })) as never));
    expect(visited.length === tokens.length && visited.every((span, index) => span.start === tokens[index]!.start && span.end === tokens[index]!.end), 'visitTokens and tokenize disagree');
  }, 2),
  target('text.words', async (g, c) => {
    await c.call(() => words(g.text() as string));
  }),
  target('text.scriptMix+detectLanguage', async (g, c) => {
    const text = g.text();
    const mix = await c.call(() => scriptMix(text as string));
    const total = mix.arabic + mix.latin + mix.other;
    expect(total === 0 || Math.abs(total - 1) < 1e-9, `scriptMix shares sum to ${total}`);
    await c.call(() => detectLanguage(text as string));
    await c.call(() => isRightToLeft(text as string));
    await c.call(() => isArabic(text as string));
    await c.call(() => tokenScript(text as string));
  }),
  target('text.stemmers', async (g, c) => {
    const word = g.chance(0.8) ? g.word() : g.text();
    await c.call(() => stemArabic(word as string));
    await c.call(() => snowballStemArabic(word as string));
    await c.call(() => stemEnglish(word as string));
    await c.call(() => isStopword(word as string));
  }),
  target('text.Analyzer', async (g, c) => {
    const options = analyzerOptions(g);
    const analyzer = await c.call(() => new Analyzer(options as never));
    const text = g.text();
    const terms = await c.call(() => analyzer.analyze(text as string));
    const tokens = await c.call(() => analyzer.analyzeTokens(text as string));
    expect(tokens.length === terms.length, 'analyzeTokens and analyze disagree on the number of terms');
    expectOffsets(text as string, tokens.map((token) => token.token), 'Analyzer.analyzeTokens');
    const visitedTerms: string[] = [];
    await c.call(() =>
      analyzer.forEachTokenTerms(text as string, (_word, _start, _end, _script, found) => {
        if (typeof found === 'string') visitedTerms.push(found);
        else if (found !== null) visitedTerms.push(...found);
      }),
    );
    expect(visitedTerms.length === terms.length && visitedTerms.every((term, index) => term === terms[index]), 'forEachTokenTerms and analyze disagree');
    await c.call(() => resolveAnalyzerOptions(options as never));
  }, 2),
  target('text.splitSentences', async (g, c) => {
    const text = g.text();
    const sentences = await c.call(() => splitSentences(text as string));
    expectOffsets(text as string, sentences, 'splitSentences');
  }),
  target('text.truncateAtWordBoundary', async (g, c) => {
    const text = g.text();
    const budget = g.number(0, 3000);
    // A counter in characters that is not charCounter itself takes the interpolation search: a
    // frame of 7 around any non-empty text (as a context around a chunk; nothing costs nothing).
    const framedChars = Object.assign((piece: string) => (piece === '' ? 0 : 7 + charCounter(piece)), { unit: 'chars' });
    const counter = g.pick([charCounter, wordCounter, framedChars, undefined]);
    const options = g.chance(0.3) ? g.options({ ellipsis: () => g.pick(['', '…', '...', ' [cut]', g.hostile()]) }) : undefined;
    const cut = await c.call(() => truncateAtWordBoundary(text as string, budget as number, counter, options as never));
    expectWithinBudget(cut, budget, counter ?? charCounter, 'truncateAtWordBoundary');
    const ellipsis = (options as { ellipsis?: string } | undefined)?.ellipsis ?? '…';
    expect(cut === text || cut === '' || (text as string).startsWith(cut.slice(0, cut.length - ellipsis.length)), 'truncateAtWordBoundary returned something that is not a prefix');
  }, 2),
  target('text.counters', async (g, c) => {
    const text = g.text();
    const chars = await c.call(() => charCounter(text as string));
    expect(chars === Array.from(text as string).length, 'charCounter does not count code points');
    await c.call(() => wordCounter(text as string));
    await c.call(() => fnv1a(text as string));
  }),
];
