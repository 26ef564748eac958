import type { AnswerType } from '@zerda/types';
import { normalizeText, words } from '@zerda/text';

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
}

/** Builds cues from phrases; a leading `^` marks a start-only cue. */
export function cues(phrases: readonly string[], options: { maxTail?: number } = {}): Cue[] {
  return phrases.map((phrase) => {
    const start = phrase.startsWith('^');
    const cue: Cue = { words: words(normalizeText(start ? phrase.slice(1) : phrase)), start };
    if (options.maxTail !== undefined) cue.maxTail = options.maxTail;
    return cue;
  });
}

/** Leading words that do not stop a start-only cue from counting as “at the start”. */
const LEADERS = new Set(['and', 'so', 'but', 'then', 'also', 'و', 'ف', 'ثم', 'لكن']);
/** Arabic conjunctions that attach to the next word (وكيف, فما). */
const ATTACHED = ['و', 'ف'];

function matchesAt(tokens: readonly string[], index: number, cue: Cue): boolean {
  if (cue.maxTail !== undefined && tokens.length - index - cue.words.length > cue.maxTail) return false;
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

/** Cues of a list by their first word, so that a scan looks only at the cues a token can start. */
const CUE_INDEX = new WeakMap<readonly Cue[], Map<string, Cue[]>>();

function cueIndex(list: readonly Cue[]): Map<string, Cue[]> {
  let index = CUE_INDEX.get(list);
  if (!index) {
    index = new Map();
    for (const cue of list) {
      const first = cue.words[0];
      if (first === undefined) continue;
      const entries = index.get(first);
      if (entries) entries.push(cue);
      else index.set(first, [cue]);
    }
    CUE_INDEX.set(list, index);
  }
  return index;
}

/** Cues of `index` that may start at `token` (the word itself, or the word behind an attached و / ف). */
function cuesStartingAt(index: Map<string, Cue[]>, token: string): Cue[] | undefined {
  const direct = index.get(token);
  let attached: Cue[] | undefined;
  for (const prefix of ATTACHED) if (token.length > prefix.length && token.startsWith(prefix)) attached = index.get(token.slice(prefix.length));
  if (!attached) return direct;
  return direct ? [...direct, ...attached] : attached;
}

/**
 * The first cue of `list` found in the normalised `tokens`, or undefined: the earliest cue in list
 * order wins, as if each cue were searched for in turn. Linear in the tokens (cues are looked up by
 * their first word).
 */
export function findCue(tokens: readonly string[], list: readonly Cue[]): Cue | undefined {
  let first = 0;
  while (first < tokens.length - 1 && LEADERS.has(tokens[first] as string)) first++;
  const index = cueIndex(list);
  let best: Cue | undefined;
  let bestOrder = Infinity;
  const consider = (cue: Cue, at: number) => {
    const order = list.indexOf(cue);
    if (order < bestOrder && matchesAt(tokens, at, cue)) {
      best = cue;
      bestOrder = order;
    }
  };
  for (let i = 0; i < tokens.length; i++) {
    const candidates = cuesStartingAt(index, tokens[i] as string);
    if (!candidates) continue;
    for (const cue of candidates) if (!cue.start || i === first) consider(cue, i);
  }
  return best;
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

/**
 * Question words per kind of answer, checked in this order (a quantity or time phrase is more
 * specific than a bare “what”/“ما”). A definition is the `definition` intent; anything else is `other`.
 */
export const ANSWER_TYPE_CUES: ReadonlyArray<readonly [AnswerType, readonly Cue[]]> = [
  [
    'quantity',
    cues([
      'how many', 'how much', 'how large', 'how big', 'how long', 'how far', 'how tall', 'how old', 'how deep', 'how high', 'how wide', 'how fast', 'how heavy',
      'what percentage', 'what percent', 'what is the population', 'what was the population', 'population of', 'number of',
      'كم', 'بكم', 'ما عدد', 'كم عدد', 'ما مساحة', 'ما طول', 'ما ارتفاع', 'ما نسبة', 'ما عمر', 'ما حجم', 'ما سرعة', 'ما وزن', 'ما قيمة', 'ما سعر', 'ما تعداد', 'ما مقدار', 'ما مدة', 'عدد سكان',
    ]),
  ],
  [
    'time',
    cues([
      '^when', 'what year', 'which year', 'what date', 'what day', 'what century', 'which century', 'what decade', 'since when', 'what time', 'in what year', 'what age',
      'متى', 'منذ متى', 'في أي عام', 'في أي سنة', 'في اي عام', 'في أي قرن', 'في أي تاريخ', 'في أي يوم', 'في أي شهر', 'ما تاريخ', 'في عام كم', 'في سنة كم',
    ]),
  ],
  [
    'place',
    cues([
      '^where', 'what country', 'which country', 'what city', 'which city', 'what state', 'which state', 'what continent', 'what region', 'in what country', 'where is', 'where was', 'located',
      'أين', 'في أي بلد', 'في أي دولة', 'في أي مدينة', 'في أي منطقة', 'في أي مكان', 'في أي قارة', 'ما عاصمة', 'إلى أين', 'من أين', 'تقع', 'يقع',
    ]),
  ],
  ['person', cues(['^who', '^whom', '^whose', 'who is', 'who was', 'who were', '^من', 'من هو', 'من هي', 'من هم', 'من الذي', 'لمن', 'ممن', 'عمن', 'من أول'])],
  ['reason', cues(['^why', 'what caused', 'what causes', 'reason for', 'reasons for', 'لماذا', '^لم', 'ما سبب', 'ما أسباب', 'ما هو سبب', 'ما الذي أدى'])],
];
