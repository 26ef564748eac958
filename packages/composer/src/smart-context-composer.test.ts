import { tokenCounter } from '@zerda/context-core';
import { charCounter, defaultAnalyzer, truncateAtWordBoundary as sharedTruncation, wordCounter } from '@zerda/text';
import { ZerdaError, type ContextTemplate, type ScoredChunk } from '@zerda/types';
import { describe, expect, it } from 'vitest';
import {
  ARABIC_EGYPT,
  ARABIC_LIBRARY,
  BIDI_CONTROLS,
  ENGLISH_FRANCE,
  ENGLISH_GERMANY,
  MIXED,
  analysisOf,
  scored,
  tokenLikeCounter,
} from './__fixtures__/chunks.js';
import { SmartContextComposer, truncateAtWordBoundary } from './index.js';

const corpus = (): ScoredChunk[] => [scored('france#0', ENGLISH_FRANCE), scored('egypt#0', ARABIC_EGYPT), scored('germany#0', ENGLISH_GERMANY)];

function errorOf(action: () => unknown): ZerdaError {
  try {
    action();
  } catch (error) {
    expect(ZerdaError.isInstance(error)).toBe(true);
    return error as ZerdaError;
  }
  throw new Error('expected a ZerdaError');
}

describe('templates', () => {
  const composer = new SmartContextComposer();

  it('default: chunks joined by the configured separator, in rank order', () => {
    const result = composer.compose(corpus(), { budget: 5000 });
    expect(result.context).toBe([ENGLISH_FRANCE, ARABIC_EGYPT, ENGLISH_GERMANY].join('\n\n---\n\n'));
    expect(result.template).toBe('default');
    expect(result.truncated).toBe(false);
    expect(result.chunks.map((chunk) => [chunk.chunk.id, chunk.fit, chunk.keptRatio, chunk.rank])).toEqual([
      ['france#0', 'whole', 1, 1],
      ['egypt#0', 'whole', 1, 2],
      ['germany#0', 'whole', 1, 3],
    ]);
    const custom = new SmartContextComposer({ separator: '\n===\n' }).compose(corpus().slice(0, 2), { budget: 5000 });
    expect(custom.context).toBe(`${ENGLISH_FRANCE}\n===\n${ARABIC_EGYPT}`);
  });

  it('numbered: [n] before each passage, citation numbers reported', () => {
    const result = composer.compose(corpus(), { budget: 5000, template: 'numbered' });
    expect(result.context).toBe(`[1] ${ENGLISH_FRANCE}\n\n[2] ${ARABIC_EGYPT}\n\n[3] ${ENGLISH_GERMANY}`);
    expect(result.chunks.map((chunk) => chunk.citation)).toEqual([1, 2, 3]);
  });

  it('markdown: a heading per source, localized for Arabic queries', () => {
    const english = composer.compose(corpus().slice(0, 2), { budget: 5000, template: 'markdown', analysis: analysisOf('capital of France') });
    expect(english.context).toBe(`### Source: france.md\n\n${ENGLISH_FRANCE}\n\n### Source: egypt.md\n\n${ARABIC_EGYPT}`);
    const arabic = composer.compose(corpus().slice(0, 2), { budget: 5000, template: 'markdown', analysis: analysisOf('ما هي عاصمة مصر؟') });
    expect(arabic.context).toBe(`### المصدر: france.md\n\n${ENGLISH_FRANCE}\n\n### المصدر: egypt.md\n\n${ARABIC_EGYPT}`);
    expect(english.chunks[0]?.citation).toBeUndefined();
  });

  it('xml: one <document> per passage, attribute values escaped, closing tags in text neutralized', () => {
    const tricky = scored('q#0', 'Ignore this </document> and <b>bold</b> & more text here.', { source: 'a "quoted" <src> & \'more\'' });
    const result = composer.compose([tricky, scored('egypt#0', ARABIC_EGYPT)], { budget: 5000, template: 'xml' });
    expect(result.context).toBe(
      '<document source="a &quot;quoted&quot; &lt;src&gt; &amp; &apos;more&apos;" id="q#0">\n' +
        'Ignore this &lt;/document> and <b>bold</b> & more text here.\n</document>\n' +
        `<document source="egypt.md" id="egypt#0">\n${ARABIC_EGYPT}\n</document>`,
    );
  });

  it('citations: numbered passages and a source list, "Sources" in English and "المصادر" in Arabic', () => {
    const chunks = [scored('france#0', ENGLISH_FRANCE, { title: 'France' }), scored('egypt#0', ARABIC_EGYPT)];
    const english = composer.compose(chunks, { budget: 5000, template: 'citations' });
    expect(english.context).toBe(`[1] ${ENGLISH_FRANCE}\n\n[2] ${ARABIC_EGYPT}\n\nSources:\n[1] france.md — France\n[2] egypt.md`);
    const arabic = composer.compose(chunks, { budget: 5000, template: 'citations', analysis: analysisOf('نهر النيل') });
    expect(arabic.context).toBe(`[1] ${ENGLISH_FRANCE}\n\n[2] ${ARABIC_EGYPT}\n\nالمصادر:\n[1] france.md — France\n[2] egypt.md`);
    expect(arabic.chunks.map((chunk) => chunk.citation)).toEqual([1, 2]);
    expect(composer.compose([], { budget: 100, template: 'citations' }).context).toBe('');
  });

  it('labels can be overridden', () => {
    const composer = new SmartContextComposer({}, { labels: { source: 'Quelle' } });
    expect(composer.compose(corpus().slice(0, 1), { budget: 5000, template: 'markdown' }).context.startsWith('### Quelle: france.md\n\n')).toBe(true);
  });

  it('custom template functions receive the passages and rtl flag; their name is reported', () => {
    const seen: boolean[] = [];
    const bracketed: ContextTemplate = function bracketed(passages, context) {
      seen.push(context.rtl);
      return passages.map((passage) => `<<${passage.number}|${passage.chunk.id}>> ${passage.text}`).join('\n');
    };
    const result = composer.compose(corpus().slice(0, 2), { budget: 5000, template: bracketed, analysis: analysisOf('ما هي عاصمة مصر؟') });
    expect(result.context).toBe(`<<1|france#0>> ${ENGLISH_FRANCE}\n<<2|egypt#0>> ${ARABIC_EGYPT}`);
    expect(result.template).toBe('custom:bracketed');
    expect(seen.every((rtl) => rtl)).toBe(true);
    const anonymous = [(passages: unknown[]) => `${passages.length}`][0] as ContextTemplate;
    expect(composer.compose(corpus(), { budget: 5000, template: anonymous }).template).toBe('custom');
  });

  it('custom templates are fitted to the budget like built-in ones', () => {
    const verbose: ContextTemplate = (passages) => passages.map((passage) => `=== PASSAGE ${passage.number} ===\n${passage.text}`).join('\n\n');
    const result = composer.compose(corpus(), { budget: 300, template: verbose });
    expect(charCounter(result.context)).toBeLessThanOrEqual(300);
    expect(result.context.startsWith('=== PASSAGE 1 ===\n')).toBe(true);
  });

  it('right-to-left and mixed-direction text is left exactly as written, without bidi marks', () => {
    for (const template of ['default', 'numbered', 'markdown', 'xml', 'citations'] as const) {
      const result = composer.compose([scored('mixed#0', MIXED), scored('egypt#0', ARABIC_EGYPT)], { budget: 5000, template, analysis: analysisOf('نموذج GPT-4') });
      expect(result.context).toContain(MIXED);
      expect(result.context).toContain(ARABIC_EGYPT);
      expect(result.context.match(BIDI_CONTROLS)).toBeNull();
    }
  });
});

describe('budget fitting (no query: whole chunks by rank, then one cut)', () => {
  const composer = new SmartContextComposer();

  it('keeps whole chunks while they fit and cuts the next one at a sentence boundary', () => {
    const budget = ENGLISH_FRANCE.length + '\n\n---\n\n'.length + 90;
    const result = composer.compose(corpus(), { budget });
    expect(result.chunks.map((chunk) => chunk.fit)).toEqual(['whole', 'truncated']);
    const cut = result.chunks[1]!;
    // Arabic sentences end with "." and "؟": the cut ends right after one of them.
    expect(cut.keptText).toBe('القاهرةُ هي عاصمةُ جمهوريةِ مصرَ العربية وأكبرُ مدنها.');
    expect(cut.keptRatio).toBeGreaterThan(0);
    expect(cut.keptRatio).toBeLessThan(1);
    expect(result.truncated).toBe(true);
    expect(result.skipped).toEqual([{ chunkId: 'germany#0', reason: 'budget', detail: 'no room left in the budget' }]);
    expect(charCounter(result.context)).toBeLessThanOrEqual(budget);
  });

  it('cuts at a word boundary with an ellipsis when no sentence fits, never inside a word', () => {
    const longSentence = `${'The quick brown fox jumps over the lazy dog and keeps running '.repeat(6)}until the end`;
    const result = composer.compose([scored('fox#0', longSentence)], { budget: 120 });
    const kept = result.chunks[0]!;
    expect(kept.fit).toBe('truncated');
    expect(kept.keptText.endsWith('…')).toBe(true);
    const prefix = kept.keptText.slice(0, -1);
    expect(longSentence.startsWith(prefix)).toBe(true);
    expect(longSentence[prefix.length]).toBe(' ');
    expect(result.context).toBe(kept.keptText);
    expect(charCounter(result.context)).toBeLessThanOrEqual(120);
  });

  it('cuts Arabic text at a word boundary: never between a letter and its harakat or inside a word', () => {
    const arabic = 'يَمُرُّ نَهْرُ النِّيلِ بِمِصْرَ وَالسُّودَانِ وَيَصُبُّ فِي البَحْرِ المُتَوَسِّطِ بَعْدَ رِحْلَةٍ طَوِيلَةٍ عَبْرَ القَارَّةِ الإِفْرِيقِيَّةِ مِنَ الجَنُوبِ إِلَى الشَّمَالِ';
    for (let budget = 50; budget < charCounter(arabic); budget += 7) {
      const result = composer.compose([scored('nile#0', arabic)], { budget });
      const kept = result.chunks[0];
      expect(charCounter(result.context)).toBeLessThanOrEqual(budget);
      if (!kept) continue;
      const prefix = kept.keptText.slice(0, -1);
      expect(arabic.startsWith(prefix)).toBe(true);
      expect(arabic[prefix.length]).toBe(' ');
    }
  });

  it('counts headers, separators and footers: the markdown context is exactly within the budget', () => {
    const whole = composer.compose(corpus(), { budget: 5000, template: 'markdown' }).context;
    const result = composer.compose(corpus(), { budget: charCounter(whole) - 1, template: 'markdown' });
    expect(charCounter(result.context)).toBeLessThanOrEqual(charCounter(whole) - 1);
    expect(result.chunks.at(-1)?.fit).toBe('truncated');
    // No heading without its passage.
    expect(result.context.trimEnd().endsWith(':')).toBe(false);
    expect(result.context.match(/^### /gm)?.length).toBe(result.chunks.length);
  });

  it('never leaves a dangling header: a budget that fits only a heading gives an empty context', () => {
    const result = composer.compose([scored('france#0', ENGLISH_FRANCE)], { budget: 30, template: 'markdown' });
    expect(result.context).toBe('');
    expect(result.chunks).toEqual([]);
    expect(result.skipped.map((skip) => skip.chunkId)).toEqual(['france#0']);
  });

  it('skips a chunk whose cut would be shorter than minChunkLength and tries the next one', () => {
    const short = 'A short chunk that fits whole.';
    const result = composer.compose([scored('france#0', ENGLISH_FRANCE), scored('germany#0', ENGLISH_GERMANY), scored('short#0', short)], {
      budget: ENGLISH_FRANCE.length + 7 + 40 + 7,
    });
    expect(result.chunks.map((chunk) => chunk.chunk.id)).toEqual(['france#0', 'short#0']);
    expect(result.skipped[0]).toMatchObject({ chunkId: 'germany#0', reason: 'too_short' });
    const strict = new SmartContextComposer({ minChunkLength: 0 }).compose([scored('germany#0', ENGLISH_GERMANY)], { budget: 20 });
    expect(strict.chunks[0]?.keptText).toBe('Berlin is the…');
  });

  it('budget 0 gives an empty context; chunks with empty text are skipped', () => {
    expect(composer.compose(corpus(), { budget: 0 }).context).toBe('');
    // Nothing is measured or valued at budget 0 (a 1 MB chunk used to cost seconds); every chunk is accounted for.
    const huge = `${'Paris is the capital of France. '.repeat(30_000)}`;
    const nothing = composer.compose([scored('huge#0', huge), scored('blank#0', ' '), scored('egypt#0', ARABIC_EGYPT)], { budget: 0, analysis: { ...analysisOf('capital of France'), intent: 'other' } });
    expect(nothing.context).toBe('');
    expect(nothing.chunks).toEqual([]);
    expect(nothing.skipped.map((dropped) => [dropped.chunkId, dropped.reason])).toEqual([['huge#0', 'budget'], ['blank#0', 'empty'], ['egypt#0', 'budget']]);
    const result = composer.compose([scored('empty#0', '   '), scored('france#0', ENGLISH_FRANCE)], { budget: 5000 });
    expect(result.context).toBe(ENGLISH_FRANCE);
    expect(result.skipped).toEqual([{ chunkId: 'empty#0', reason: 'empty', detail: 'the chunk text is empty or whitespace' }]);
  });

  it('fits word and token-like budgets', () => {
    const words = composer.compose(corpus(), { budget: 60, counter: wordCounter });
    expect(wordCounter(words.context)).toBeLessThanOrEqual(60);
    expect(words.stats.unit).toBe('words');
    expect(words.chunks.length).toBeGreaterThanOrEqual(2);
    const tokens = composer.compose(corpus(), { budget: 90, counter: tokenLikeCounter, template: 'citations' });
    expect(tokenLikeCounter(tokens.context)).toBeLessThanOrEqual(90);
    expect(tokens.stats.unit).toBe('tokens');
  });

  // 18 fits measured by a real BPE tokenizer: seconds on a loaded 2-core machine.
  it('fits a real tokenizer budget (cl100k_base) for Arabic and English, with and without a query', { timeout: 60_000 }, () => {
    const tokens = tokenCounter('cl100k_base');
    const long = [...corpus(), scored('library#0', ARABIC_LIBRARY), scored('mixed#0', MIXED)];
    for (const budget of [0, 20, 45, 80, 130, 200]) {
      for (const analysis of [undefined, analysisOf('نهر النيل'), analysisOf('Berlin Wall')]) {
        const result = composer.compose(long, { budget, counter: tokens, template: 'citations', ...(analysis ? { analysis } : {}) });
        expect(tokens(result.context)).toBeLessThanOrEqual(budget);
        expect(result.stats).toMatchObject({ unit: 'tokens', length: tokens(result.context) });
        if (budget >= 130) expect(result.chunks.length).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('uses config.maxContextLength when no budget is given', () => {
    const result = new SmartContextComposer({ maxContextLength: 100 }).compose(corpus(), {} as never);
    expect(charCounter(result.context)).toBeLessThanOrEqual(100);
  });
});

describe('query-focused compression', () => {
  const longAnswerLast = `${'Background sentence about unrelated laboratory procedures and general context. '.repeat(12)}The Nile river is the longest river in Africa.`;
  const chunks = () => [
    scored('long#0', longAnswerLast),
    scored('nile#0', 'The Nile river flows north through Egypt into the Mediterranean Sea. Its delta is very fertile.'),
    scored('rivers#0', 'Many rivers in Africa are long. The Congo river is the deepest river in the world. Rivers carry sediment.'),
  ];

  it('does not strand a tight budget: a best chunk made of one long sentence is cut to the budget, not squeezed into what others leave (Arabic and English)', () => {
    const composer = new SmartContextComposer();
    const cases = [
      {
        query: 'ما طول نهر النيل بالكيلومترات؟',
        best: 'يبلغ طول نهر النيل نحو ستة آلاف وستمئة وخمسين كيلومترا من منابعه في هضبة البحيرات الاستوائية وإثيوبيا حتى مصبه في البحر المتوسط شمال مصر، ويمر عبر إحدى عشرة دولة إفريقية منها أوغندا وجنوب السودان والسودان ومصر، ويعد بذلك من أطول أنهار العالم',
        other: 'تقع مصر في شمال إفريقيا. عاصمتها القاهرة. يبلغ عدد سكانها أكثر من مئة مليون. نهر صغير يمر بالقرية.',
      },
      {
        query: 'How long is the Nile river in kilometres?',
        best: 'The Nile river runs about six thousand six hundred and fifty kilometres from its sources in the Great Lakes region and the Ethiopian highlands to its mouth on the Mediterranean coast of northern Egypt, crossing eleven African countries on the way',
        other: 'Egypt lies in north Africa. Its capital is Cairo. More than a hundred million people live there. A small river crosses the village.',
      },
    ];
    for (const { query, best, other } of cases) {
      const budget = 200;
      const result = composer.compose([scored('best#0', best, {}, 1), scored('other#0', other, {}, 0.95)], { budget, analysis: analysisOf(query) });
      expect(charCounter(result.context)).toBeLessThanOrEqual(budget);
      const top = result.chunks.find((chunk) => chunk.chunk.id === 'best#0');
      expect(top?.fit).toBe('truncated');
      // The answer-bearing chunk gets (nearly) the whole budget, not a remnant.
      expect(charCounter(result.context.split('\n\n---\n\n')[0]!)).toBeGreaterThan(budget * 0.8);
    }
  });

  it('keeps the sentences that match the query, in original order, so more chunks fit', () => {
    const composer = new SmartContextComposer();
    const budget = 400;
    const focused = composer.compose(chunks(), { budget, analysis: analysisOf('Nile river length') });
    const naive = composer.compose(chunks(), { budget, analysis: analysisOf('Nile river length'), compression: 'off' });
    expect(charCounter(focused.context)).toBeLessThanOrEqual(budget);
    expect(naive.chunks.map((chunk) => chunk.chunk.id)).toEqual(['long#0']);
    expect(focused.chunks.map((chunk) => chunk.chunk.id).sort()).toEqual(['long#0', 'nile#0', 'rivers#0']);
    const long = focused.chunks.find((chunk) => chunk.chunk.id === 'long#0')!;
    expect(long.fit).toBe('compressed');
    expect(long.keptText).toContain('The Nile river is the longest river in Africa.');
    expect(long.keptRatio).toBeLessThan(0.5);
    // Original order: every kept piece appears in the chunk in the same order.
    let position = 0;
    for (const piece of long.keptText.split(' […] ')) {
      const found = longAnswerLast.indexOf(piece, position);
      expect(found).toBeGreaterThanOrEqual(position);
      position = found + piece.length;
    }
  });

  it('works for Arabic: keywords match through diacritics, tatweel and the article', () => {
    const composer = new SmartContextComposer();
    const result = composer.compose([scored('library#0', ARABIC_LIBRARY), scored('egypt#0', ARABIC_EGYPT)], {
      budget: 220,
      analysis: analysisOf('ما هو أطول نهر؟ النيل'),
    });
    expect(charCounter(result.context)).toBeLessThanOrEqual(220);
    const egypt = result.chunks.find((chunk) => chunk.chunk.id === 'egypt#0');
    expect(egypt?.keptText).toContain('يَمُرُّ بها نهرُ النّيـــل، أطولُ أنهار العالم؟');
    // Text is copied verbatim (harakat and tatweel kept), never normalised.
    expect(result.context).toContain('النّيـــل');
  });

  it("'always' compresses even when everything fits; 'off' never does", () => {
    const analysis = analysisOf('Berlin Wall');
    const always = new SmartContextComposer({ compression: 'always' }).compose([scored('germany#0', ENGLISH_GERMANY), scored('france#0', ENGLISH_FRANCE)], { budget: 5000, analysis });
    const germany = always.chunks.find((chunk) => chunk.chunk.id === 'germany#0')!;
    expect(germany.fit).toBe('compressed');
    expect(germany.keptText).toContain('The Berlin Wall fell in 1989');
    expect(germany.keptText).not.toContain('Cold War');
    // France has no query term: it keeps its opening sentence only.
    expect(always.chunks.find((chunk) => chunk.chunk.id === 'france#0')?.keptText).toBe('Paris is the capital and most populous city of France.');
    const auto = new SmartContextComposer().compose([scored('germany#0', ENGLISH_GERMANY)], { budget: 5000, analysis });
    expect(auto.chunks[0]?.fit).toBe('whole');
    const off = new SmartContextComposer({ compression: 'off' }).compose(chunks(), { budget: 400, analysis });
    expect(off.chunks.every((chunk) => chunk.fit !== 'compressed')).toBe(true);
  });

  it('gives a long first chunk a share instead of letting it crowd out the others', () => {
    const longFirst = Array.from({ length: 20 }, (_, index) => `Claim ${index} about vitamin D and bone density in older adults.`).join(' ');
    const relevantLater = 'Vitamin D supplementation reduced fracture risk in a randomized trial of older adults.';
    const input = [scored('long#0', longFirst), scored('a#0', ENGLISH_GERMANY), scored('b#0', ENGLISH_FRANCE), scored('trial#0', relevantLater)];
    const analysis = analysisOf('vitamin D fracture risk trial');
    const result = new SmartContextComposer().compose(input, { budget: 600, analysis });
    expect(result.chunks.map((chunk) => chunk.chunk.id)).toContain('trial#0');
    expect(result.chunks.find((chunk) => chunk.chunk.id === 'trial#0')?.fit).toBe('whole');
    const naive = new SmartContextComposer({ compression: 'off' }).compose(input, { budget: 600, analysis });
    expect(naive.chunks.map((chunk) => chunk.chunk.id)).not.toContain('trial#0');
  });

  it('uses embeddings when the query embedding and chunk embeddings are given', () => {
    const first = scored('first#0', ENGLISH_FRANCE, { embedding: [1, 0, 0] });
    const second = scored('second#0', ENGLISH_GERMANY, { embedding: [0, 1, 0] });
    // The value fit without a margin over lead packing (the default margin keeps lead packing when
    // no sentence holds a query term, as here: the model is never that sure).
    const composer = new SmartContextComposer({}, { policy: { margin: 0 } });
    // Room for one opening only; no query term occurs in either chunk.
    const analysis = analysisOf('zzzz');
    const withEmbedding = composer.compose([first, second], { budget: 70, analysis, queryEmbedding: [0, 1, 0] });
    expect(withEmbedding.chunks.map((chunk) => chunk.chunk.id)).toEqual(['second#0']);
    const withoutMatch = composer.compose([first, second], { budget: 70, analysis, queryEmbedding: [1, 0, 0] });
    expect(withoutMatch.chunks.map((chunk) => chunk.chunk.id)).toEqual(['first#0']);
    // At the defaults the ranking's lead stays.
    expect(new SmartContextComposer().compose([first, second], { budget: 70, analysis, queryEmbedding: [0, 1, 0] }).chunks.map((chunk) => chunk.chunk.id)).toEqual(['first#0']);
  });

  it('uses the analyzer given to the constructor for sentence terms', () => {
    const plain = new SmartContextComposer({ compression: 'always' }, { analyzer: new (defaultAnalyzer.constructor as typeof import('@zerda/text').Analyzer)({ stem: false }) });
    const result = plain.compose([scored('germany#0', ENGLISH_GERMANY)], { budget: 5000, analysis: { ...analysisOf('x'), keywords: ['reunified'] } });
    expect(result.chunks[0]?.keptText).toBe('The Berlin Wall fell in 1989, and the city was reunified.');
  });
});

describe('value-based fit: the sentences most likely to hold the answer', () => {
  const marxism = 'Marxism is a method of socioeconomic analysis that views class relations and social conflict using a materialist interpretation of historical development. It originates from the works of 19th-century German philosophers Karl Marx and Friedrich Engels. Marxism has developed into many different branches and schools of thought.';
  const leninism = 'Marxism–Leninism is a political ideology developed by Joseph Stalin in the late 1920s, based on his understanding of orthodox Marxism and Leninism.';

  it('prefers the sentence that holds the kind of answer asked for (a time for “when”, a number for “how many”)', () => {
    const text = 'Marxism is a social theory of class relations. Marxism developed in the 19th century in Germany. Marxism spread to many countries and movements.';
    const when = new SmartContextComposer().compose([scored('marx#0', text, {}, 10), scored('other#0', leninism, {}, 4)], { budget: 60, analysis: analysisOf('When did Marxism develop?', 'time') });
    expect(when.context).toContain('19th century');
    const counts = 'The Nile river is long. The Nile river crosses 11 countries. The Nile river is famous.';
    const many = new SmartContextComposer().compose([scored('nile#0', counts, {}, 10)], { budget: 60, analysis: analysisOf('How many countries does the Nile river cross?', 'quantity') });
    expect(many.context).toContain('11 countries');
  });

  it('fills the budget: the best sentence that no longer fits is cut at a word boundary, with an ellipsis', () => {
    const analysis = analysisOf('When did Marxism develop?', 'time');
    for (const budget of [120, 180, 250, 330]) {
      const result = new SmartContextComposer().compose([scored('marxism#0', marxism, {}, 10), scored('leninism#0', leninism, {}, 6)], { budget, analysis });
      const length = charCounter(result.context);
      expect(length).toBeLessThanOrEqual(budget);
      // Filled up to the last word that fits, or a prefix too short to be worth a place (20 characters) plus its gap marker.
      expect(length).toBeGreaterThan(budget - 30);
      const cut = result.chunks.find((chunk) => chunk.keptText.endsWith('…'));
      if (cut) {
        const prefix = cut.keptText.split(' […] ').pop()!.slice(0, -1);
        expect(cut.chunk.text.includes(prefix)).toBe(true);
        // Never inside a word.
        const at = cut.chunk.text.indexOf(prefix) + prefix.length;
        expect(/[\p{L}\p{N}]/u.test(cut.chunk.text[at] ?? ' ') && /[\p{L}\p{N}]/u.test(cut.chunk.text[at - 1] ?? ' ')).toBe(false);
      }
    }
  });

  it('works the same for Arabic: an Arabic “when” question keeps the sentence with the year', () => {
    const text = 'الماركسية منهج في التحليل الاجتماعي والاقتصادي يدرس العلاقات الطبقية والصراع الاجتماعي. نشأت الماركسية في القرن التاسع عشر على يد الفيلسوفين كارل ماركس وفريدريك إنجلز عام ١٨٤٨. تفرعت الماركسية إلى مدارس فكرية كثيرة.';
    const analysis = analysisOf('متى نشأت الماركسيّة؟', 'time');
    const result = new SmartContextComposer().compose([scored('marx#0', text, {}, 10), scored('other#0', 'الفلسفة فرع من فروع المعرفة يدرس الوجود والمعرفة والقيم. وللفلسفة مدارس كثيرة.', {}, 3)], { budget: 110, analysis });
    expect(charCounter(result.context)).toBeLessThanOrEqual(110);
    expect(result.context).toContain('القرن التاسع عشر');
  });

  it('explains every sentence of every used chunk: kept or not, its value, its query terms and why', () => {
    const analysis = analysisOf('When did Marxism develop?', 'time');
    const result = new SmartContextComposer().compose([scored('marxism#0', marxism, {}, 10), scored('leninism#0', leninism, {}, 6)], { budget: 200, analysis });
    for (const used of result.chunks) {
      const sentences = used.sentences!;
      expect(sentences.length).toBeGreaterThan(0);
      for (const sentence of sentences) {
        expect(sentence.value).toBeGreaterThan(0);
        expect(sentence.value).toBeLessThan(1);
        const text = used.chunk.text.slice(sentence.start, sentence.end);
        if (sentence.kept === 'whole') expect(used.keptText).toContain(text);
        if (sentence.kept === 'none') expect(used.keptText).not.toContain(text);
        if (sentence.terms.length > 0) expect(sentence.reasons).toContain('query-terms');
      }
      expect(sentences[0]!.reasons).toContain('lead');
    }
    const marx = result.chunks.find((chunk) => chunk.chunk.id === 'marxism#0')!;
    const answer = marx.sentences!.find((sentence) => marx.chunk.text.slice(sentence.start, sentence.end).includes('19th-century'))!;
    expect(answer.reasons).toContain('answer-type');
    expect(marx.sentences!.filter((sentence) => sentence.kept !== 'none').length).toBeGreaterThan(0);
    // A chunk kept whole because everything fits needs no choice, and has no explanation.
    const whole = new SmartContextComposer().compose([scored('marxism#0', marxism)], { budget: 5000, analysis });
    expect(whole.chunks[0]!.sentences).toBeUndefined();
  });

  it('concentrates on the top chunk when retrieval is confident and spreads when it is not', () => {
    const analysis = analysisOf('Nile river flooding season');
    const top = 'The Nile river floods every summer. The flooding season brought silt to the fields. Farmers planted after the water receded. Dams now control the river.';
    const other = 'The Nile river crosses eleven countries. Its flooding season shaped the calendar of Egypt. The river ends in a delta.';
    const sharesOf = (topScore: number) => {
      // The value fit alone (no lead share, no margin): how it spreads is what is tested.
      const result = new SmartContextComposer({}, { policy: { share: 0, confidentShare: 0, margin: 0 } }).compose([scored('top#0', top, {}, topScore), scored('other#0', other, {}, 5)], { budget: 250, analysis });
      const topLength = charCounter(result.chunks.find((chunk) => chunk.chunk.id === 'top#0')?.keptText ?? '');
      return topLength / charCounter(result.context);
    };
    expect(sharesOf(50)).toBeGreaterThan(sharesOf(5.2));
  });

  it('stays fast when minChunkLength is above what the budget holds: a 32 KB chunk of short lines', () => {
    const lines = Array.from({ length: 4000 }, (_, index) => `l ${index}.`).join('\n');
    const composer = new SmartContextComposer({ minChunkLength: 5000 });
    const time = (text: string) => {
      const started = performance.now();
      const result = composer.compose([scored('lines#0', text)], { budget: 200, analysis: analysisOf('line 12') });
      expect(charCounter(result.context)).toBeLessThanOrEqual(200);
      return performance.now() - started;
    };
    const small = lines.slice(0, 3200);
    time(small);
    time(lines);
    // A sample of the small text times ten compositions (one lasts about a millisecond, where a timer
    // tick or a collection decides); samples of both sizes interleave and the best of each counts, so
    // load from another process hits both alike. A ratio over the limit is measured again (up to three
    // rounds): one noisy round must not fail a linear path, while a quadratic one (near 100) fails all.
    const ratio = () => {
      let smallBest = Number.POSITIVE_INFINITY;
      let largeBest = Number.POSITIVE_INFINITY;
      for (let sample = 0; sample < 5; sample++) {
        let total = 0;
        for (let run = 0; run < 10; run++) total += time(small);
        smallBest = Math.min(smallBest, total / 10);
        largeBest = Math.min(largeBest, time(lines));
      }
      return largeBest / smallBest;
    };
    let measured = ratio();
    for (let round = 1; round < 3 && measured >= 15; round++) measured = Math.min(measured, ratio());
    // Ten times the text may cost at most fifteen times the time (linear, not quadratic).
    expect(measured).toBeLessThan(15);
  });

  it('takes an injected sentence model and refuses a malformed one naming the weight', () => {
    const analysis = analysisOf('When did Marxism develop?', 'time');
    const leadOnly = new SmartContextComposer({}, { sentenceModel: { weights: { bias: -3, position0: 4 } } });
    const result = leadOnly.compose([scored('marxism#0', marxism, {}, 10)], { budget: 150, analysis });
    expect(result.context.startsWith('Marxism is a method')).toBe(true);
    expect(() => new SmartContextComposer({}, { sentenceModel: { weights: { bias: Number.NaN } } })).toThrow(/options\.sentenceModel\.weights\.bias/);
    expect(() => new SmartContextComposer({}, { sentenceModel: 3 as never })).toThrow(/options\.sentenceModel/);
    expect(() => new SmartContextComposer({}, { sentencModel: {} } as never)).toThrow(/options\.sentencModel/);
  });
});

describe('ordering', () => {
  const ranked = () => [1, 2, 3, 4, 5].map((rank) => scored(`d${rank}#0`, `Passage number ${rank} with enough words to be a real passage of text.`));

  it("'rank' keeps the ranked order", () => {
    const result = new SmartContextComposer({ template: 'numbered' }).compose(ranked(), { budget: 5000 });
    expect(result.chunks.map((chunk) => chunk.rank)).toEqual([1, 2, 3, 4, 5]);
  });

  it("'edges' puts the best chunks at both ends (lost in the middle)", () => {
    const result = new SmartContextComposer({ ordering: 'edges', template: 'numbered' }).compose(ranked(), { budget: 5000 });
    expect(result.chunks.map((chunk) => chunk.rank)).toEqual([1, 3, 5, 4, 2]);
    expect(result.chunks.map((chunk) => chunk.citation)).toEqual([1, 2, 3, 4, 5]);
    expect(result.context.indexOf('Passage number 2')).toBeGreaterThan(result.context.indexOf('Passage number 4'));
  });

  it("'document' restores reading order and merges adjacent chunks without repeating their overlap (positions)", () => {
    const documentText = 'First part of the report. Second part follows here. Third part ends the report.';
    const parts = [
      { index: 1, start: 20, end: 52 },
      { index: 0, start: 0, end: 26 },
      { index: 2, start: 46, end: documentText.length },
    ];
    const chunks = parts.map((part, rank) =>
      scored(`report#${part.index}`, documentText.slice(part.start, part.end), { position: part }, 1 - rank / 10),
    );
    const result = new SmartContextComposer({ ordering: 'document', template: 'citations' }).compose([...chunks, scored('other#0', ARABIC_LIBRARY)], { budget: 5000 });
    expect(result.context).toBe(`[1] ${documentText}\n\n[2] ${ARABIC_LIBRARY}\n\nSources:\n[1] report.md\n[2] other.md`);
    expect(result.chunks.map((chunk) => [chunk.chunk.id, chunk.citation])).toEqual([
      ['report#0', 1],
      ['report#1', 1],
      ['report#2', 1],
      ['other#0', 2],
    ]);
  });

  it("'document' detects textual overlap without positions, and keeps non-adjacent chunks apart", () => {
    const chunks = [
      scored('arabic#1', 'وهو شريان الحياة في مصر. ويصب في البحر المتوسط.', { position: { index: 1 } }),
      scored('arabic#0', 'يمر نهر النيل بمصر والسودان. وهو شريان الحياة في مصر.', { position: { index: 0 } }),
      scored('arabic#5', 'فقرة بعيدة عن الفقرتين السابقتين في الترتيب.', { position: { index: 5 } }),
    ];
    const result = new SmartContextComposer({ ordering: 'document' }).compose(chunks, { budget: 5000 });
    expect(result.context).toBe('يمر نهر النيل بمصر والسودان. وهو شريان الحياة في مصر. ويصب في البحر المتوسط.\n\n---\n\nفقرة بعيدة عن الفقرتين السابقتين في الترتيب.');
  });

  it("'document' shows a gap marker where compression removed text between merged chunks", () => {
    const first = 'Alpha one sentence about nothing in particular at all. Alpha two mentions the keyword zebra here, at some length.';
    const second = 'Beta one has nothing relevant for the query we ask today. Beta two also talks about zebra stripes in the savanna.';
    const result = new SmartContextComposer({ ordering: 'document', compression: 'always' }).compose(
      [scored('doc#0', first), scored('doc#1', second)],
      { budget: 5000, analysis: analysisOf('zebra') },
    );
    expect(result.context).toBe('Alpha two mentions the keyword zebra here, at some length. […] Beta two also talks about zebra stripes in the savanna.');
  });
});

describe('truncate and getStats', () => {
  const composer = new SmartContextComposer();

  it('truncate is the shared word-boundary truncation, re-exported', () => {
    expect(truncateAtWordBoundary).toBe(sharedTruncation);
    expect(composer.truncate(ENGLISH_FRANCE, 30)).toBe(sharedTruncation(ENGLISH_FRANCE, 30));
    expect(composer.truncate(ARABIC_EGYPT, 40)).toBe(sharedTruncation(ARABIC_EGYPT, 40));
    expect(composer.truncate('short', 30)).toBe('short');
    expect(composer.truncate(ENGLISH_FRANCE, 5, wordCounter)).toBe('Paris is the capital and…');
  });

  it('getStats of the last composed context is exact', () => {
    const result = composer.compose(corpus(), { budget: 5000, template: 'citations' });
    const stats = composer.getStats(result.context, { budget: 5000 });
    expect(stats).toEqual(result.stats);
    expect(stats.chunkCount).toBe(3);
    expect(stats.characters).toBe(charCounter(result.context));
    expect(stats.averageChunkLength).toBeCloseTo((charCounter(ENGLISH_FRANCE) + charCounter(ARABIC_EGYPT) + charCounter(ENGLISH_GERMANY)) / 3);
    expect(stats.language.arabic).toBeGreaterThan(0.2);
    expect(stats.language.latin).toBeGreaterThan(0.5);
    expect(stats.budgetUtilization).toBeCloseTo(charCounter(result.context) / 5000);
  });

  it('getStats counts passages of any context from the template marks', () => {
    const xml = '<document source="a" id="1">\nنص عربي\n</document>\n<document source="b" id="2">\nEnglish\n</document>';
    const stats = new SmartContextComposer({ template: 'xml' }).getStats(xml, { counter: wordCounter, budget: 4 });
    expect(stats.chunkCount).toBe(2);
    expect(stats.unit).toBe('words');
    expect(stats.budgetUtilization).toBe(1);
    expect(stats.language.arabic).toBeGreaterThan(0);
    expect(composer.getStats('one\n\n---\n\ntwo\n\n---\n\nthree').chunkCount).toBe(3);
    expect(composer.getStats('')).toMatchObject({ length: 0, characters: 0, chunkCount: 0, averageChunkLength: 0 });
    const citations = new SmartContextComposer({ template: 'citations' }).getStats('[1] a\n\n[2] b\n\nSources:\n[1] x\n[2] y');
    expect(citations.chunkCount).toBe(2);
  });
});

describe('bad input', () => {
  const composer = new SmartContextComposer();

  it.each([
    [-1, 'options.budget'],
    [Number.NaN, 'options.budget'],
    ['100', 'options.budget'],
  ])('budget %s is refused naming %s', (budget, field) => {
    const error = errorOf(() => composer.compose(corpus(), { budget: budget as number }));
    expect(error.details.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('non-string chunk text is refused naming the chunk', () => {
    const chunks = corpus();
    (chunks[1]!.chunk as { text: unknown }).text = 42;
    const error = errorOf(() => composer.compose(chunks, { budget: 100 }));
    expect(error.message).toBe('chunks[1].chunk.text must be a string, got number 42');
  });

  it('unknown template, ordering and compression are refused naming the option', () => {
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, template: 'fancy' as never })).message).toMatch(/^options\.template must be one of "default", "numbered", "markdown", "xml", "citations" or a template function, got string "fancy"/);
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, ordering: 'random' as never })).details.field).toBe('options.ordering');
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, compression: 'max' as never })).details.field).toBe('options.compression');
    expect(errorOf(() => new SmartContextComposer({ template: 'fancy' } as never)).details.field).toBe('config.composer.template');
  });

  it('other malformed input is refused naming the field', () => {
    expect(errorOf(() => composer.compose('chunks' as never, { budget: 100 })).details.field).toBe('chunks');
    expect(errorOf(() => composer.compose([{ score: 1 } as never], { budget: 100 })).details.field).toBe('chunks[0].chunk');
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, counter: 5 as never })).details.field).toBe('options.counter');
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, counter: () => Number.NaN })).details.field).toBe('options.counter');
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, analysis: { keywords: 'nile' } as never })).details.field).toBe('options.analysis.keywords');
    expect(errorOf(() => composer.compose(corpus(), { budget: 100, queryEmbedding: [1, Number.NaN] })).details.field).toBe('options.queryEmbedding[1]');
    expect(errorOf(() => composer.compose(corpus(), { budget: 5000, template: (() => 5) as never })).details.field).toBe('options.template');
    expect(errorOf(() => composer.truncate(5 as never, 10)).details.field).toBe('text');
    expect(errorOf(() => composer.truncate('text', -3)).details.field).toBe('budget');
    expect(errorOf(() => composer.getStats(null as never)).details.field).toBe('context');
    expect(errorOf(() => composer.getStats('x', { budget: Number.NaN })).details.field).toBe('options.budget');
  });

  it('leaves the input chunks untouched', () => {
    const chunks = corpus();
    const before = JSON.stringify(chunks);
    composer.compose(chunks, { budget: 150, analysis: analysisOf('Nile'), ordering: 'document' });
    expect(JSON.stringify(chunks)).toBe(before);
  });
});
