import type { AnswerType } from '@zerda/types';
import { normalizeText, visitTokens, words } from '@zerda/text';

/**
 * A cue phrase, stored as the normalised word sequence it matches. Cue tables are written in
 * ordinary spelling (with hamza, ى, harakat where natural) and normalised once here with the same
 * function queries go through, so `أين`, `اين` and `أَيْنَ` are one cue.
 */
export interface Cue {
  words: string[];
  /** Only at the start of the query (after an optional leading conjunction), for ambiguous words such as Arabic `من` (“who” / “from”). */
  start: boolean;
  /** The cue counts only when at most this many words follow it (see DEFINITION_CUES). */
  maxTail?: number;
  /** The cue does not count when the word after it is one of these (see {@link FROM_PHRASES}). */
  notBefore?: ReadonlySet<string>;
}

/**
 * Words after which Arabic `من` is the preposition “from / of”, never “who”: `من حيث` (in terms
 * of), `من قبل` (by), `من خلال` (through), `من أجل` (for) … “ما أكبر مدينة، من حيث المساحة؟” asks
 * no person. The start-only cue `^من` does not count before them.
 */
export const FROM_PHRASES: ReadonlySet<string> = new Set(
  words(normalizeText('حيث قبل بعد خلال أجل اجل بين دون ضمن جهة ناحية طرف عند حوالي نحو جانب منطلق فضلك الممكن المعروف المفترض')),
);

/** Arabic `من`, “who” or “from” (normalised). */
const FROM = normalizeText('من');

/** Builds cues from phrases; a leading `^` marks a start-only cue (`^من` does not count before {@link FROM_PHRASES}). */
export function cues(phrases: readonly string[], options: { maxTail?: number } = {}): Cue[] {
  return phrases.map((phrase) => {
    const start = phrase.startsWith('^');
    const cue: Cue = { words: words(normalizeText(start ? phrase.slice(1) : phrase)), start };
    if (options.maxTail !== undefined) cue.maxTail = options.maxTail;
    if (start && cue.words.length === 1 && cue.words[0] === FROM) cue.notBefore = FROM_PHRASES;
    return cue;
  });
}

/** Leading words that do not stop a start-only cue from counting as “at the start”. */
const LEADERS = new Set(['and', 'so', 'but', 'then', 'also', 'و', 'ف', 'ثم', 'لكن']);

/**
 * Requests a question is often wrapped in (“can you tell me when …”, “أريد أن أعرف متى …”): the
 * question starts after them, so a start-only cue counts there too. Longest first, so that “can you
 * tell me” is skipped whole, not only “can you”.
 */
export const REQUEST_CUES: readonly Cue[] = cues([
  'can you please tell me', 'could you please tell me', 'can you tell me', 'could you tell me', 'would you tell me', 'will you tell me', 'please tell me', 'tell me',
  'do you know', 'does anyone know', 'do you happen to know', 'i would like to know', "i'd like to know", 'i want to know', 'i need to know', 'i wonder', 'i was wondering', 'i am wondering',
  'let me know', 'quick question', 'question', 'please', 'hi', 'hello', 'hey',
  'هل يمكنك أن تخبرني', 'هل يمكنك أن تقول لي', 'هل تستطيع أن تخبرني', 'هل بإمكانك أن تخبرني', 'هل يمكن أن تخبرني', 'هل تعرف', 'هل تعلم', 'هل تعرفين',
  'أريد أن أعرف', 'أود أن أعرف', 'أحب أن أعرف', 'أريد معرفة', 'أود معرفة', 'أخبرني', 'أخبريني', 'قل لي', 'سؤال', 'من فضلك', 'لو سمحت', 'رجاء', 'مرحبا', 'السلام عليكم',
]).sort((a, b) => b.words.length - a.words.length);

/** The requests by their first word, longest first (a lookup per position instead of a scan of the list). */
const REQUESTS_BY_FIRST_WORD = new Map<string, Cue[]>();
for (const request of REQUEST_CUES) {
  const first = request.words[0] as string;
  const list = REQUESTS_BY_FIRST_WORD.get(first);
  if (list) list.push(request);
  else REQUESTS_BY_FIRST_WORD.set(first, [request]);
}

/** The request of {@link REQUEST_CUES} at `index` of `tokens` that leaves a question after it, or undefined. */
function requestAt(tokens: readonly string[], index: number): Cue | undefined {
  const token = tokens[index];
  if (token === undefined) return undefined;
  const candidates = [...(REQUESTS_BY_FIRST_WORD.get(token) ?? []), ...(token.length > 1 && ATTACHED.includes(token[0] as string) ? (REQUESTS_BY_FIRST_WORD.get(token.slice(1)) ?? []) : [])];
  let found: Cue | undefined;
  for (const request of candidates) {
    if (index + request.words.length < tokens.length && matchesAt(tokens, index, request) && (!found || request.words.length > found.words.length)) found = request;
  }
  return found;
}

/** At most this many requests are skipped before a question (“hi, quick question, can you tell me …”), so that a query of repeated requests costs linear time. */
const MAX_REQUESTS = 6;

/** Where the question at `index` starts: past leading conjunctions and the requests it is wrapped in. */
function questionStart(tokens: readonly string[], index: number): number {
  let at = index;
  for (let skipped = 0; ; skipped++) {
    while (at < tokens.length - 1 && LEADERS.has(tokens[at] as string)) at++;
    const request = skipped < MAX_REQUESTS ? requestAt(tokens, at) : undefined;
    if (request === undefined) return at;
    at += request.words.length;
  }
}

/** Punctuation that ends a clause: a question may start after it (“I'd like to know: when …”, “Quick question, who …”). */
const CLAUSE_END = /[:;,.!?\n\u060C\u061B\u061F\u06D4]/u;

/**
 * The words of a normalised query, the indices of the words that start a clause (the first, and each
 * after clause punctuation), and where a question may start in each clause (past leading conjunctions
 * and requests: what {@link findCue}'s start-only cues are matched at). Linear in the text.
 */
export function queryWords(normalized: string): { tokens: string[]; starts: number[]; questionStarts: number[] } {
  const tokens: string[] = [];
  const starts: number[] = [0];
  let previousEnd = 0;
  visitTokens(normalized, (start, end) => {
    if (tokens.length > 0 && CLAUSE_END.test(normalized.slice(previousEnd, start))) starts.push(tokens.length);
    tokens.push(normalized.slice(start, end));
    previousEnd = end;
  });
  return { tokens, starts, questionStarts: questionStarts(tokens, starts) };
}

/** Where a question may start, per clause start (see {@link queryWords}), without repeats. */
export function questionStarts(tokens: readonly string[], clauseStarts: readonly number[]): number[] {
  return [...new Set(clauseStarts.map((clause) => questionStart(tokens, clause)))];
}
/** Arabic conjunctions that attach to the next word (وكيف, فما). */
const ATTACHED = ['و', 'ف'];

function matchesAt(tokens: readonly string[], index: number, cue: Cue): boolean {
  if (cue.maxTail !== undefined && tokens.length - index - cue.words.length > cue.maxTail) return false;
  if (cue.notBefore !== undefined && cue.notBefore.has(tokens[index + cue.words.length] as string)) return false;
  for (let k = 0; k < cue.words.length; k++) {
    const token = tokens[index + k];
    const expected = cue.words[k] as string;
    if (token === undefined) return false;
    if (token === expected) continue;
    // The first word of an Arabic cue may carry an attached و / ف (e.g. وكيف, فما هو).
    if (k === 0 && ATTACHED.some((prefix) => token === prefix + expected)) continue;
    return false;
  }
  return true;
}

/** A cue list indexed by the first word of its cues that may match anywhere (not only at the start). */
interface CueTable {
  /** Positions in the list of the anywhere-cues, by their first word. */
  byFirstWord: Map<string, number[]>;
  /** Positions of the start-only cues. */
  startOnly: number[];
}

const tables = new WeakMap<readonly Cue[], CueTable>();

function tableOf(list: readonly Cue[]): CueTable {
  let table = tables.get(list);
  if (table) return table;
  table = { byFirstWord: new Map(), startOnly: [] };
  list.forEach((cue, position) => {
    if (cue.words.length === 0) return;
    if (cue.start) {
      table!.startOnly.push(position);
      return;
    }
    const first = cue.words[0] as string;
    const positions = table!.byFirstWord.get(first);
    if (positions) positions.push(position);
    else table!.byFirstWord.set(first, [position]);
  });
  tables.set(list, table);
  return table;
}

/**
 * The first cue of `list` (in list order) found in the normalised `tokens`, or undefined. One pass
 * over the tokens: at each position only the cues whose first word is that token (or that token
 * without an attached و / ف) are tried, so the cost is linear in the query, not tokens × cues.
 */
export function findCue(tokens: readonly string[], list: readonly Cue[], starts?: readonly number[]): Cue | undefined {
  const table = tableOf(list);
  let best = Number.POSITIVE_INFINITY;
  // Where questions start (by default, only at the query's start) matters only to start-only cues.
  if (table.startOnly.length > 0) {
    for (const first of starts ?? questionStarts(tokens, [0])) {
      for (const position of table.startOnly) {
        if (position < best && matchesAt(tokens, first, list[position] as Cue)) best = position;
      }
    }
  }
  const tryAt = (index: number, word: string): void => {
    const positions = table.byFirstWord.get(word);
    if (positions === undefined) return;
    for (const position of positions) {
      if (position >= best) break;
      if (matchesAt(tokens, index, list[position] as Cue)) best = position;
    }
  };
  for (let index = 0; index < tokens.length && best > 0; index++) {
    const token = tokens[index] as string;
    tryAt(index, token);
    if (token.length > 1 && ATTACHED.includes(token[0] as string)) tryAt(index, token.slice(1));
  }
  return best === Number.POSITIVE_INFINITY ? undefined : list[best];
}

/** Counts the occurrences of single-word cues in `tokens`. */
export function countWords(tokens: readonly string[], set: ReadonlySet<string>): number {
  let count = 0;
  for (const token of tokens) if (set.has(token)) count++;
  return count;
}

export const COMPARISON_CUES = cues([
  'compare', 'compared', 'comparing', 'comparison', 'versus', 'vs', 'difference', 'differences', 'differ',
  'better than', 'worse than', 'which is better', 'pros and cons', 'similarities', 'contrast',
  'قارن', 'قارني', 'مقارنة', 'المقارنة', 'بالمقارنة', 'الفرق', 'الفروق', 'فرق', 'أفضل', 'مقابل', 'أيهما', 'الاختلاف', 'الاختلافات',
]);

export const HOW_TO_CUES = cues([
  'how to', 'how do', 'how does', 'how can', 'how should', 'steps', 'step by step', 'tutorial',
  'كيف', 'كيفية', 'طريقة', 'طريقه', 'خطوات', 'الخطوات',
]);

export const LIST_CUES = cues([
  'list', 'examples', 'examples of', 'types of', 'kinds of', 'categories of', 'what are some', 'name some', 'enumerate',
  'اذكر', '^عدد', '^عدّد', 'أنواع', 'انواع', 'أمثلة', 'امثلة', 'مثالا', 'مثالاً', 'قائمة', 'أصناف',
]);

/**
 * “What is X” asks for a definition when X is a short term (“what is RAG”, “ما هو التعلم الآلي”), and
 * for a fact when X is a longer phrase (“what is the capital of France”, “ما هي مساحة جمهورية مصر
 * العربية”): those cues count only with at most three words after them. Explicit definition words
 * (define, meaning of, عرّف, ما معنى …) count anywhere.
 */
export const DEFINITION_CUES = [
  ...cues(['what is', 'what are', "what's", 'what does', 'ما هو', 'ما هي', 'ماهو', 'ماهي', 'ما هما'], { maxTail: 3 }),
  ...cues(['define', 'definition', 'meaning of', 'stands for', 'ما معنى', 'ما المقصود', '^عرف', '^عرّف', 'تعريف', 'ما مفهوم', 'مفهوم']),
];

export const FACTUAL_CUES = cues([
  'how many', 'how much', 'how long', 'how old', 'what year', 'what time',
  '^who', '^whom', '^whose', '^when', '^where', '^which', '^why', '^what', '^is', '^are', '^does', '^did', '^can',
  '^من', 'متى', 'أين', 'كم', 'بكم', '^هل', 'لماذا', 'ماذا', 'بماذا', 'لمن', 'ممن', 'عمن', 'على من', 'إلى من', 'ضد من', '^لم', 'أي', 'بأي', 'لأي',
  // “ما + noun” (ما طول …، ما اسم …) asks for a fact; ما هو / ما هي were taken by the definition cues above.
  '^ما', '^ماهو', '^ماهي',
  // A frequent misspelling of ذ as د in typed questions.
  'مادا', 'لمادا', 'بمادا',
]);

/** Standalone conjunctions that join clauses (English and Arabic, normalised). */
export const CONJUNCTIONS: ReadonlySet<string> = new Set(
  ['and', 'or', 'but', 'then', 'whereas', 'while', 'و', 'أو', 'او', 'لكن', 'ولكن', 'ثم', 'بل', 'بينما'].map((word) => normalizeText(word)),
);

/** Arabic “what” with its copula (ما هو / ما هي / ماهو / ماهي, with an attached و / ف), normalised. */
const WHAT_WITH_COPULA = /(^|[^\p{L}])([وف]?)ما\s*(?:هو|هي)(?![\p{L}])/gu;

/**
 * A normalised query with Arabic “what is” reduced to “what” (“ما هو عدد السكان” → “ما عدد السكان”,
 * “ماهي عاصمة” → “ما عاصمة”), so that the answer-type cues written for “ما عدد”, “ما عاصمة”, “ما سبب” …
 * read either form. Linear.
 */
export function withoutCopula(normalized: string): string {
  return normalized.replace(WHAT_WITH_COPULA, '$1$2ما');
}

/**
 * Words after “how” that do not make it a question of degree: verbs and auxiliaries (“how did …”,
 * “how is … made”), pronouns and articles, “how come” (why), “how about”.
 */
const NOT_DEGREE = new Set(
  `do does did doing done is are was were am be been being can could should would will shall may might must has have had get gets got
   to come about and or if so not the a an this that these those it its i you he she we they me my your his her our their there here`.split(/\s+/u).filter(Boolean),
);

/**
 * A question of degree, “how” and an adjective or adverb (“how salty is the Dead Sea?”, “how often …”,
 * “how expensive …”): answered by a measure, so its answer type is `quantity` — what the fixed cues
 * (“how long”, “how tall” …) say of the common ones, for any adjective. Checked at every question
 * start (`queryWords`), after the cue lists found nothing.
 */
export function isDegreeQuestion(tokens: readonly string[], starts: readonly number[]): boolean {
  for (const start of starts) {
    if (tokens[start] !== 'how') continue;
    const next = tokens[start + 1];
    if (next !== undefined && /^\p{L}+$/u.test(next) && !NOT_DEGREE.has(next)) return true;
  }
  return false;
}

/** “what is the X”, “what was the X”, “what's the X” … for each noun X (a question asking for the measure or the thing X names). */
function whatIsThe(nouns: string): string[] {
  return nouns.split(' ').flatMap((noun) => ['what is the', 'what was the', 'what s the', 'what are the', 'what were the'].map((asked) => `${asked} ${noun}`));
}

/**
 * Question words per kind of answer, checked in this order (a quantity or time phrase is more
 * specific than a bare “what”/“ما”). A definition is the `definition` intent; anything else is `other`.
 */
export const ANSWER_TYPE_CUES: ReadonlyArray<readonly [AnswerType, readonly Cue[]]> = [
  [
    'quantity',
    cues([
      'how many', 'how much', 'how large', 'how big', 'how long', 'how far', 'how tall', 'how old', 'how deep', 'how high', 'how wide', 'how fast', 'how heavy',
      'what percentage', 'what percent', 'population of', 'number of',
      // The measures Arabic asks with ما + noun (ما مساحة، ما طول، ما نسبة …), asked in English.
      ...whatIsThe('population area size length height width depth weight distance temperature speed age price cost value percentage average amount duration'),
      'كم', 'بكم', 'ما عدد', 'كم عدد', 'ما مساحة', 'ما طول', 'ما ارتفاع', 'ما نسبة', 'ما عمر', 'ما حجم', 'ما سرعة', 'ما وزن', 'ما قيمة', 'ما سعر', 'ما تعداد', 'ما مقدار', 'ما مدة', 'عدد سكان',
    ]),
  ],
  [
    'time',
    cues([
      '^when', 'what year', 'which year', 'what years', 'which years', 'what date', 'what dates', 'what day', 'which day', 'what month', 'which month', 'what century', 'which century', 'what decade', 'since when', 'what time', 'in what year', 'what age',
      'متى', 'منذ متى', 'في أي عام', 'في أي سنة', 'في اي عام', 'في أي قرن', 'في أي تاريخ', 'في أي يوم', 'في أي شهر', 'ما تاريخ', 'في عام كم', 'في سنة كم',
    ]),
  ],
  [
    'place',
    cues([
      ...whatIsThe('capital'), '^where', 'what country', 'which country', 'what city', 'which city', 'what state', 'which state', 'what continent', 'what region', 'in what country', 'where is', 'where was', 'located',
      'أين', 'في أي بلد', 'في أي دولة', 'في أي مدينة', 'في أي منطقة', 'في أي مكان', 'في أي قارة', 'ما عاصمة', 'إلى أين', 'من أين', 'تقع', 'يقع',
    ]),
  ],
  ['person', cues(['^who', '^whom', '^whose', 'who is', 'who was', 'who were', '^من', 'من هو', 'من هي', 'من هم', 'من الذي', 'لمن', 'ممن', 'عمن', 'من أول', 'على يد من', 'على من', 'إلى من', 'الى من'])],
  ['reason', cues(['^why', 'what caused', 'what causes', 'reason for', 'reasons for', 'لماذا', '^لم', 'ما سبب', 'ما أسباب', 'ما الذي أدى'])],
];
