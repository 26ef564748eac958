import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Analyzer } from '@zerda/text';
import { ZerdaError } from '@zerda/types';
import { QueryAnalyzer, queryLengthProblem } from './query-analyzer.js';
import { ANSWER_TYPE_CUES, COMPARISON_CUES, DEFINITION_CUES, FACTUAL_CUES, FROM_PHRASES, HOW_TO_CUES, LIST_CUES, REQUEST_CUES, findCue, queryWords, questionStarts, type Cue } from './cues.js';

const analyzer = new QueryAnalyzer();

describe('QueryAnalyzer: language and keywords', () => {
  it('detects English, Arabic and mixed queries with their script mix', () => {
    const english = analyzer.analyze('What is retrieval augmented generation?');
    expect(english.language).toBe('en');
    expect(english.scriptMix.latin).toBe(1);
    const arabic = analyzer.analyze('ما هو التعلم الآلي؟');
    expect(arabic.language).toBe('ar');
    expect(arabic.scriptMix.arabic).toBe(1);
    const mixed = analyzer.analyze('كيف أستخدم BM25 retrieval في zerda');
    expect(mixed.scriptMix.arabic).toBeGreaterThan(0);
    expect(mixed.scriptMix.latin).toBeGreaterThan(0);
  });

  it('extracts analysed keywords without stopwords, unique, in query order, in both languages', () => {
    const analysis = analyzer.analyze('What are the libraries and the libraries of Arabic stemming?');
    expect(analysis.keywords).not.toContain('what');
    expect(analysis.keywords).not.toContain('the');
    expect(new Set(analysis.keywords).size).toBe(analysis.keywords.length);
    expect(analysis.keywords).toEqual(new Analyzer().analyze('libraries Arabic stemming').filter((k, i, all) => all.indexOf(k) === i));

    const arabic = analyzer.analyze('ما هي المكتبات في المكتبة؟');
    expect(arabic.keywords).not.toContain('ما');
    expect(arabic.keywords).not.toContain('في');
    expect(arabic.keywords.length).toBeGreaterThan(0);
  });

  it('normalises Arabic keywords: harakat, tatweel and alef variants give the same keywords', () => {
    const plain = analyzer.analyze('ما هو التعلم الآلي؟').keywords;
    const decorated = analyzer.analyze('مَا هُوَ التَّعَلُّــمُ الآلِيُّ؟').keywords;
    expect(decorated).toEqual(plain);
  });

  it('keeps the literal query and the effective query apart (defect 4)', () => {
    const analysis = analyzer.analyze('and its price? (hnswlib index)', { literalQuery: 'and its price?' });
    expect(analysis.query).toBe('and its price?');
    expect(analysis.effectiveQuery).toBe('and its price? (hnswlib index)');
    // Keywords come from the effective query: the history words drive retrieval.
    expect(analysis.keywords.some((keyword) => keyword.startsWith('hnsw'))).toBe(true);
    // Complexity and intent describe what was literally asked.
    expect(analysis.complexity).toBe('simple');
  });

  it('defaults the literal query to the effective query', () => {
    const analysis = analyzer.analyze('What is BM25?');
    expect(analysis.query).toBe('What is BM25?');
    expect(analysis.effectiveQuery).toBe('What is BM25?');
  });
});

describe('QueryAnalyzer: intent', () => {
  const cases: Array<[string, string]> = [
    ['What is retrieval augmented generation?', 'definition'],
    ['Define tokenization', 'definition'],
    ['ما هو التعلم الآلي؟', 'definition'],
    ['ما هي الشبكات العصبية؟', 'definition'],
    ['ما معنى الاسترجاع؟', 'definition'],
    ['عرّف الخوارزمية', 'definition'],
    ['How to install zerda?', 'how-to'],
    ['How do I configure the cache?', 'how-to'],
    ['What are the steps to build an index?', 'how-to'],
    ['كيف أثبت المكتبة؟', 'how-to'],
    ['وكيف أضبط الذاكرة؟', 'how-to'],
    ['ما هي خطوات بناء الفهرس؟', 'how-to'],
    ['Compare BM25 and dense retrieval', 'comparison'],
    ['What is the difference between HNSW and IVF?', 'comparison'],
    ['Python vs Java for search', 'comparison'],
    ['قارن بين البحث الدلالي والبحث النصي', 'comparison'],
    ['ما الفرق بين الفهرس والمتجه؟', 'comparison'],
    ['أيهما أفضل للبحث العربي؟', 'comparison'],
    ['What is the capital city of France?', 'factual'],
    ['ما هي مساحة جمهورية مصر العربية؟', 'factual'],
    ['في أي مدينة ولد ابن سينا؟', 'factual'],
    ['ما طول نهر النيل؟', 'factual'],
    ['بأي اسم عرف سليمان القانوني؟', 'factual'],
    ['Who wrote the Canon of Medicine?', 'factual'],
    ['When was the library founded?', 'factual'],
    ['How many languages are supported?', 'factual'],
    ['من ألف كتاب القانون في الطب؟', 'factual'],
    ['متى تأسست الجامعة؟', 'factual'],
    ['أين تقع المكتبة؟', 'factual'],
    ['كم عدد اللغات المدعومة؟', 'factual'],
    ['هل يدعم النظام العربية؟', 'factual'],
    ['لماذا تفشل الفهرسة؟', 'factual'],
    ['List the supported vector stores', 'list'],
    ['Give examples of chunkers', 'list'],
    ['What are some types of embeddings?', 'list'],
    ['اذكر أنواع الشبكات العصبية', 'list'],
    ['عدد أمثلة على المكتبات', 'list'],
    ['ما هي أنواع الفهارس؟', 'list'],
    ['vector databases', 'other'],
    ['الطقس اليوم', 'other'],
  ];
  it.each(cases)('%s → %s', (query, intent) => {
    expect(analyzer.analyze(query).intent).toBe(intent);
  });

  it('does not read the preposition من (“from”) inside a sentence as “who”', () => {
    expect(analyzer.analyze('نقل البيانات من الخادم').intent).toBe('other');
  });
});

describe('QueryAnalyzer: answer type', () => {
  const analyzer = new QueryAnalyzer();
  const cases: Array<[string, string]> = [
    ['When was quantum field theory developed?', 'time'],
    ['What year did the war end?', 'time'],
    ['What years did Voltaire live?', 'time'],
    ['In which month does the monsoon start?', 'time'],
    ['How many people live in Cairo?', 'quantity'],
    ['How large is the Kerman province?', 'quantity'],
    // What Arabic asks with ما + a measure (ما مساحة، ما طول، ما نسبة …), asked in English.
    ['What is the area of Berlin?', 'quantity'],
    ["What's the average income in Wisconsin?", 'quantity'],
    ['What was the cost of the damages?', 'quantity'],
    ['What is the capital of Angola?', 'place'],
    ['ما عاصمة أنغولا؟', 'place'],
    ['Who invented Hangul?', 'person'],
    ['Where is the Louvre?', 'place'],
    ['Which country has the largest population?', 'place'],
    ['Why is the sky blue?', 'reason'],
    ['What is RAG?', 'definition'],
    ['Does the engine support Arabic?', 'other'],
    ['متى وُلد جمال خاشقجي؟', 'time'],
    ['مَتَى تأسست مدينة القاهرة؟', 'time'],
    ['في أيِّ عام انتهت الحرب؟', 'time'],
    ['كم يبلغ عدد سكان مصر؟', 'quantity'],
    ['ما مساحة جمهورية مصر العربية؟', 'quantity'],
    // “ما هو / ما هي / ماهو / ماهي X” asks what “ما X” asks.
    ['ما هي مساحة جمهورية مصر العربية؟', 'quantity'],
    ['ما هو عدد الولايات في الولايات المتحدة الأمريكية؟', 'quantity'],
    ['ماهي عاصمة العراق؟', 'place'],
    ['وما هى عاصمة هولندا؟', 'place'],
    ['ماهو سبب زوال تمثال رودس؟', 'reason'],
    ['على يد من تأسست الدولة السلجوقية؟', 'person'],
    ['إلى من تنسب متلازمة داون؟', 'person'],
    ['من هو مؤسس الدولة الأموية؟', 'person'],
    ['ومن اخترع الهاتف؟', 'person'],
    ['أين تقع مدينة البتراء؟', 'place'],
    ['اين تقع مدينة البتراء', 'place'],
    ['لماذا سميت المدينة المنورة بهذا الاسم؟', 'reason'],
    ['ما هو التعلم الآلي؟', 'definition'],
    ['What is the BM25 formula, ما هو؟', 'definition'],
  ];
  it.each(cases)('%s → %s', (query, answerType) => {
    expect(analyzer.analyze(query).answerType).toBe(answerType);
  });

  // Questions as people type them to an assistant: wrapped in a request, or after a clause.
  const wrapped: Array<[string, string, string]> = [
    ['Can you tell me when was Dubai founded?', 'time', 'factual'],
    ["I'd like to know: who wrote Hamlet?", 'person', 'factual'],
    ['Quick question, where is the Louvre?', 'place', 'factual'],
    ['Hi, could you please tell me why the sky is blue?', 'reason', 'factual'],
    ['Do you know who invented Hangul?', 'person', 'factual'],
    ['In 1990, who won the world cup?', 'person', 'factual'],
    ['هل يمكنك أن تخبرني متى تأسست دبي؟', 'time', 'factual'],
    ['من فضلك، من هو مؤسس الدولة الأموية؟', 'person', 'factual'],
    ['لو سمحت لماذا سميت المدينة المنورة بهذا الاسم؟', 'reason', 'factual'],
    ['أريد أن أعرف: من اخترع الهاتف؟', 'person', 'factual'],
  ];
  it.each(wrapped)('%s → %s (a question wrapped in a request or after a clause)', (query, answerType, intent) => {
    const analysis = analyzer.analyze(query);
    expect(analysis.answerType).toBe(answerType);
    expect(analysis.intent).toBe(intent);
  });

  it('a request without a question after it, or a start-only word inside a clause, is not a question cue', () => {
    expect(analyzer.analyze('Tell me about the weather').answerType).toBe('other');
    expect(analyzer.analyze('please').intent).toBe('other');
    expect(analyzer.analyze('نقل البيانات من الخادم').answerType).toBe('other');
    expect(analyzer.analyze('the day when everything changed').answerType).toBe('other');
  });

  it('reads “how” and an adjective or adverb as a question of degree (quantity), for any adjective', () => {
    for (const query of ['How salty is the Dead Sea?', 'How often is Halley\'s Comet visible?', 'how expensive are whistles', 'How strong is a hydrogen bond?', 'Can you tell me how cold it gets in Vienna?', 'Vienna, how cold does it get?'])
      expect(analyzer.analyze(query).answerType).toBe('quantity');
    // “How” with a verb, an auxiliary, a pronoun, “come” or “about” asks a manner or a reason, not a measure.
    for (const query of ['How did Tutankhamun die?', 'How do thermostats work?', 'How is henna made?', 'How come the sky is blue?', 'How about tomorrow?', 'How it works', 'how', 'How 2 pay'])
      expect(analyzer.analyze(query).answerType).toBe('other');
    // The fixed cues keep their types; inside a clause “how” is no question word.
    expect(analyzer.analyze('How long has Lucha Libre been around?').answerType).toBe('quantity');
    expect(analyzer.analyze('I know how expensive it is').answerType).toBe('other');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{3,12}$/).filter((word) => !['who', 'whom', 'whose', 'what', 'when', 'where', 'why', 'which', 'located'].includes(word)), (word) => {
        const type = analyzer.analyze(`How ${word} is the river?`).answerType;
        expect(['quantity', 'other']).toContain(type);
        if (!['do', 'does', 'did', 'doing', 'done', 'is', 'are', 'was', 'were', 'been', 'being', 'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must', 'has', 'have', 'had', 'get', 'gets', 'got', 'come', 'about', 'and', 'not', 'the', 'this', 'that', 'these', 'those', 'its', 'you', 'she', 'they', 'her', 'his', 'our', 'their', 'there', 'here'].includes(word)) expect(type).toBe('quantity');
      }),
      { numRuns: 300 },
    );
  });

  // A clause start made `من` a question word there too (issue 33, fifth pass): “in terms of area” asked for a person.
  // “Who” stays “who”, at the start and after a clause, with diacritics or an attached و.
  const fromOrWho: Array<[string, string]> = [
    ['ما هي أكبر مدينة، من حيث المساحة؟', 'other'],
    ['ما أكبر دولة عربية، من حيث عدد السكان؟', 'other'],
    ['أكبر مدينة، من حيث المساحة', 'other'],
    ['من حيث المساحة، ما أكبر مدينة في العالم؟', 'other'],
    ['من خلال ماذا يتنفس السمك؟', 'other'],
    ['متى تأسست الشركة، من قبل رجل أعمال؟', 'time'],
    ['من حيث', 'other'],
    ['روما، من أسسها؟', 'person'],
    ['مَن أسس روما؟', 'person'],
    ['ومن بنى الأهرامات؟', 'person'],
    ['من فضلك، من قاد الجيش؟', 'person'],
  ];
  it.each(fromOrWho)('%s → %s (Arabic من is “from” before حيث / قبل / خلال / أجل …, “who” elsewhere at a clause start)', (query, answerType) => {
    expect(analyzer.analyze(query).answerType).toBe(answerType);
  });

  it('wrapping a question in a request or a leading clause does not change its answer type or intent (property)', () => {
    const questions = cases.map(([query]) => query);
    const english = ['Can you tell me', 'Could you please tell me', "I'd like to know:", 'Quick question,', 'Hi, do you know', 'Please,', 'I was wondering'];
    const arabic = ['هل يمكنك أن تخبرني', 'من فضلك،', 'لو سمحت', 'أريد أن أعرف:', 'سؤال:', 'مرحبا، هل تعرف'];
    fc.assert(
      fc.property(fc.constantFrom(...questions), fc.array(fc.constantFrom(...english, ...arabic), { minLength: 1, maxLength: 2 }), (question, requests) => {
        const bare = analyzer.analyze(question);
        const asked = analyzer.analyze(`${requests.join(' ')} ${question}`);
        expect(asked.answerType).toBe(bare.answerType);
        if (bare.intent === 'factual') expect(asked.intent).toBe('factual');
      }),
      { numRuns: 500 },
    );
  });

  it('reads the answer type from what was literally asked, not from conversation enrichment', () => {
    expect(analyzer.analyze('and who founded it? (previous: when was Cairo built)', { literalQuery: 'and who founded it?' }).answerType).toBe('person');
  });
});

describe('QueryAnalyzer: complexity and suggestions', () => {
  it('short single questions are simple, with the simple budget and chunk count', () => {
    const analysis = analyzer.analyze('What is BM25?');
    expect(analysis.complexity).toBe('simple');
    expect(analysis.suggestedBudget).toBe(1500);
    expect(analysis.suggestedChunks).toBe(10);
    expect(analyzer.analyze('ما هو التعلم الآلي؟').complexity).toBe('simple');
  });

  it('length alone makes a query moderate, then complex', () => {
    const moderate = analyzer.analyze('Explain how the keyword index stores postings for each analysed term');
    expect(moderate.complexity).toBe('moderate');
    const long = Array.from({ length: 22 }, (_, i) => `word${i}`).join(' ');
    expect(analyzer.analyze(long).complexity).toBe('complex');
  });

  it('conjunctions, several questions and comparison cues raise complexity (English and Arabic)', () => {
    expect(analyzer.analyze('What is BM25 and why?').complexity).toBe('moderate');
    expect(analyzer.analyze('Compare BM25 and dense retrieval').complexity).toBe('complex');
    expect(analyzer.analyze('What is HNSW? What is IVF?').complexity).toBe('moderate');
    expect(analyzer.analyze('ما هو الفهرس؟ وما هو المتجه؟').complexity).not.toBe('simple');
    expect(analyzer.analyze('قارن بين الفهرس والمتجه').complexity).toBe('complex');
    expect(analyzer.analyze('python vs java').complexity).toBe('moderate');
  });

  it('exposes the signals behind the verdicts', () => {
    const { signals } = analyzer.analyzeDetailed('ما الفرق بين البحث الدلالي، والبحث النصي، والبحث الهجين؟ وأيهما أسرع؟');
    expect(signals.questions).toBe(2);
    expect(signals.clauseSeparators).toBe(2);
    expect(signals.comparison).toBe(true);
    expect(signals.conjunctions).toBeGreaterThan(0);
  });

  it('takes budgets, chunk counts and word thresholds from config', () => {
    const custom = new QueryAnalyzer({ budgets: { simple: 100, complex: 900 }, chunks: { moderate: 7 }, moderateWords: 3, complexWords: 6 });
    const simple = custom.analyze('BM25?');
    expect(simple.suggestedBudget).toBe(100);
    const moderate = custom.analyze('what is bm25 ranking');
    expect(moderate.complexity).toBe('moderate');
    expect(moderate.suggestedChunks).toBe(7);
    expect(moderate.suggestedBudget).toBe(3000);
    expect(custom.analyze('one two three four five six').suggestedBudget).toBe(900);
  });
});

describe('QueryAnalyzer: bad input', () => {
  it('rejects non-string queries naming the parameter', () => {
    expect(() => analyzer.analyze(5 as unknown as string)).toThrow(/effectiveQuery must be a string, got number 5/);
    expect(() => analyzer.analyze('x', { literalQuery: null as unknown as string })).toThrow(/options.literalQuery must be a string/);
    expect(() => analyzer.analyze('x', { literal: 'x' } as never)).toThrow(/options.literal/);
  });

  it('rejects unknown and out-of-range config with ZERDA_INVALID_CONFIG naming the field', () => {
    expect(() => new QueryAnalyzer({ budget: {} } as never)).toThrow(/config.analyzer.budget/);
    try {
      new QueryAnalyzer({ budgets: { simple: -1 } });
      expect.unreachable();
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).code).toBe('ZERDA_INVALID_CONFIG');
      expect((error as ZerdaError).message).toMatch(/config.analyzer.budgets.simple/);
    }
  });

  it('never throws on arbitrary Unicode', { timeout: 60_000 }, () => {
    for (const query of ['', '   ', '😀🚀', '\u200f\u200e', '\ud800', 'ـــــ', '؟؟؟', 'word '.repeat(6_000), 'كلمة '.repeat(6_000)]) {
      const analysis = analyzer.analyze(query);
      expect(analysis.query).toBe(query);
      expect(['simple', 'moderate', 'complex']).toContain(analysis.complexity);
    }
  });

  it('refuses a query longer than config.analyzer.maxQueryLength (default 32,768 characters) with a ZerdaError naming it (issue 15, defect 6)', () => {
    const long = 'ﷺ'.repeat(32_769);
    try {
      analyzer.analyze(long);
      expect.unreachable();
    } catch (error) {
      expect(ZerdaError.isInstance(error)).toBe(true);
      expect((error as ZerdaError).code).toBe('ZERDA_INVALID_ARGUMENT');
      expect((error as ZerdaError).message).toBe('effectiveQuery must be at most 32768 characters (config.analyzer.maxQueryLength), before and after NFKC normalisation, got a string of 32769 characters');
    }
    // The limit holds after NFKC too: ﷺ expands to 18 characters, so 2,000 of them (36,000) are refused
    // — the analysis would otherwise read 18 times what the limit promises (issue 15, defect 6).
    expect(() => analyzer.analyze('ﷺ'.repeat(2_000))).toThrow('effectiveQuery must be at most 32768 characters (config.analyzer.maxQueryLength), before and after NFKC normalisation, got a string that normalises (NFKC) to 36000 characters');
    expect(analyzer.analyze('ﷺ'.repeat(1_820)).keywords.length).toBeGreaterThan(0);
    // The exported check names what it was given when that is not a query and a limit.
    expect(queryLengthProblem('ﷺ'.repeat(10), 100)).toBe('a string that normalises (NFKC) to 180 characters');
    expect(queryLengthProblem('short', 100)).toBeUndefined();
    expect(() => queryLengthProblem(5 as never, 100)).toThrow(/query/);
    for (const limit of [0, -1, 1.5, Number.NaN, '100']) expect(() => queryLengthProblem('q', limit as never)).toThrow(/maxLength/);
    expect(analyzer.analyze(`ما هي المدينة؟ ${'ﷺ '.repeat(100)}`).language).toBe('ar');
    // Code points, not UTF-16 units: 32,768 emoji (65,536 units) are accepted.
    expect(analyzer.analyze('😀'.repeat(32_768)).query).toHaveLength(65_536);
    expect(() => analyzer.analyze('short', { literalQuery: 'x'.repeat(40_000) })).toThrow(/options\.literalQuery must be at most 32768/);
    const generous = new QueryAnalyzer({ maxQueryLength: 200_000 });
    expect(generous.analyze('word '.repeat(30_000)).complexity).toBe('complex');
  });
});

describe('cue matching is one pass over the query (issue 15, defect 6)', () => {
  // The direct definition: the first cue of the list (in list order) that matches anywhere.
  // A start-only cue counts at the start of any clause, past leading conjunctions and at most six
  // requests (the longest request that leaves a word after it, each time).
  function naiveFindCue(tokens: readonly string[], list: readonly Cue[], clauses: readonly number[] = [0]): Cue | undefined {
    const leaders = new Set(['and', 'so', 'but', 'then', 'also', 'و', 'ف', 'ثم', 'لكن']);
    const at = (index: number, cue: Cue): boolean => {
      if (cue.maxTail !== undefined && tokens.length - index - cue.words.length > cue.maxTail) return false;
      if (cue.notBefore?.has(tokens[index + cue.words.length]!)) return false;
      return cue.words.every((word, k) => tokens[index + k] === word || (k === 0 && ['و', 'ف'].some((prefix) => tokens[index] === prefix + word)));
    };
    const firsts = clauses.map((clause) => {
      let first = clause;
      for (let skipped = 0; ; skipped++) {
        while (first < tokens.length - 1 && leaders.has(tokens[first]!)) first++;
        const requests = skipped < 6 ? REQUEST_CUES.filter((request) => first + request.words.length < tokens.length && at(first, request)) : [];
        if (requests.length === 0) return first;
        first += Math.max(...requests.map((request) => request.words.length));
      }
    });
    for (const cue of list) {
      if (cue.words.length === 0) continue;
      if (cue.start) {
        if (firsts.some((first) => at(first, cue))) return cue;
        continue;
      }
      for (let i = 0; i + cue.words.length <= tokens.length; i++) if (at(i, cue)) return cue;
    }
    return undefined;
  }

  it('finds exactly the cue the direct definition finds', () => {
    const lists = [COMPARISON_CUES, HOW_TO_CUES, LIST_CUES, DEFINITION_CUES, FACTUAL_CUES, ...ANSWER_TYPE_CUES.map(([, list]) => list)];
    const vocabulary = [...new Set([...[...lists, REQUEST_CUES].flatMap((list) => list.flatMap((cue) => cue.words)), ...FROM_PHRASES])];
    const token = fc.oneof(fc.constantFrom(...vocabulary), fc.constantFrom(...vocabulary).map((word) => `و${word}`), fc.constantFrom('and', 'و', 'x', 'the', 'ف'));
    fc.assert(
      fc.property(fc.array(token, { maxLength: 14 }), fc.uniqueArray(fc.nat({ max: 13 }), { maxLength: 3 }), (tokens, extra) => {
        const clauses = [0, ...extra.filter((index) => index > 0 && index < tokens.length)].sort((a, b) => a - b);
        for (const list of lists) {
          expect(findCue(tokens, list)).toBe(naiveFindCue(tokens, list));
          expect(findCue(tokens, list, questionStarts(tokens, clauses))).toBe(naiveFindCue(tokens, list, clauses));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the clause starts after clause punctuation, in both scripts', () => {
    const english = queryWords("i would like to know: who wrote hamlet? and when");
    expect(english.starts.map((start) => english.tokens[start])).toEqual(['i', 'who', 'and']);
    const arabic = queryWords('من فضلك، من هو مؤسس الدولة؟ وما عاصمتها');
    expect(arabic.starts.map((start) => arabic.tokens[start])).toEqual(['من', 'من', 'وما']);
    expect(queryWords('no punctuation at all').starts).toEqual([0]);
  });

  // Linear: ratio ≈ 10 for 10× the repeats; quadratic ≈ 100. Samples of several milliseconds, best of
  // three, re-measured when over the limit (a timer tick or a collection must not decide it).
  it.each([
    // Every clause is a request; each clause start skips at most six of them.
    ['repeated requests', (count: number) => 'please, '.repeat(count) + 'who?'],
    // The copula reduction (a second reading of the words) and the “how” + adjective check at every clause start.
    ['Arabic “what is” and “how” at every clause', (count: number) => 'ماهو، ما  هي عدد، how salty، '.repeat(count) + 'من؟'],
    ['a run of spaces after every ما', (count: number) => 'ما          '.repeat(count) + 'هو'],
  ])('stays linear in a query of %s', (_, query: (count: number) => string) => {
    const generous = new QueryAnalyzer({ maxQueryLength: 200_000 });
    const time = (count: number) => {
      const text = query(count);
      const start = performance.now();
      for (let repeat = 0; repeat < 5; repeat++) generous.analyze(text);
      return performance.now() - start;
    };
    time(600);
    let ratio = Infinity;
    for (let round = 0; round < 3 && ratio >= 40; round++) {
      let small = Infinity;
      let large = Infinity;
      for (let sample = 0; sample < 3; sample++) {
        small = Math.min(small, time(600));
        large = Math.min(large, time(6000));
      }
      ratio = Math.min(ratio, large / small);
    }
    expect(ratio).toBeLessThan(40);
  });
});
