import { normalizeText, tokenize, type Token } from '@zerda/text';
import type { AnswerType } from '@zerda/types';

/**
 * What kinds of answer a sentence can hold, read off its words in one pass (English and Arabic):
 * a time (a year, a month, a century, عام، القرن …), a quantity (any number, number words),
 * a person (a run of capitalised words; ابن، الملك …), a place (a capitalised word after in/at/from;
 * مدينة، تقع …), a reason (because, بسبب …), a definition (“is a”, يعرف …). Linear in the text.
 */
export type AnswerCues = Record<Exclude<AnswerType, 'other'>, boolean>;

const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/u).filter(Boolean).map((word) => normalizeText(word)));

const MONTHS = words(`
  january february march april may june july august september october november december
  jan feb mar apr jun jul aug sep sept oct nov dec
  يناير فبراير مارس أبريل ابريل مايو يونيو يوليو أغسطس اغسطس سبتمبر أكتوبر اكتوبر نوفمبر ديسمبر
  كانون شباط آذار نيسان أيار حزيران تموز آب أيلول تشرين محرم صفر ربيع جمادى رجب شعبان رمضان شوال القعدة الحجة`);
const TIME_WORDS = words(`
  century centuries decade decades bc ad bce ce ago era millennium year years
  عام العام سنة السنة سنوات القرن قرن القرون ميلادي ميلادية هجري هجرية الميلاد عقد العقد`);
const NUMBER_WORDS = words(`
  one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred hundreds thousand thousands million millions billion billions dozen half percent
  واحد اثنان اثنين ثلاث ثلاثة أربع أربعة خمس خمسة ست ستة سبع سبعة ثمان ثمانية تسع تسعة عشر عشرة عشرون عشرين مئة مائة مئات ألف آلاف الف مليون ملايين مليار نصف ربع بالمئة بالمائة`);
const PERSON_WORDS = words(`
  بن ابن أبو ابو بنت الملك الملكة الأمير الأميرة الرئيس الشيخ السلطان الخليفة الإمام الامام الشاعر الكاتب العالم المؤرخ الفيلسوف مؤسس`);
const PLACE_WORDS = words(`
  مدينة المدينة دولة الدولة عاصمة العاصمة محافظة منطقة جنوب شمال شرق غرب تقع يقع قرية جزيرة ولاية بلدة إقليم قارة بحر نهر جبل`);
const PLACE_PREPOSITIONS = words('in at from near into across');
const REASON_WORDS = words(`
  because due caused causes cause result therefore consequently owing thanks led
  بسبب لأن لان نتيجة إذ لذلك بفضل أدى ادى يؤدي سبب بسبب`);
const DEFINITION_VERBS = words('is are was were');
const ARTICLES = words('a an the');
const DEFINITION_WORDS = words(`
  refers defined definition known denotes means
  هو هي يعرف تعرف يعد تعد يطلق عبارة يسمى تسمى`);
const NAME_CONNECTORS = words('of the de da di von van al el bin ibn la le');

/** Normalised token texts, memoised (cue words repeat across sentences); cleared when it grows large. */
const normalized = new Map<string, string>();
const MAX_MEMO = 50_000;
const ASCII_WORD = /^[\x00-\x7F]*$/;

/** A token's text as cue tables hold words: lower case, `normalizeText` for non-ASCII (memoised). */
export function normalizedWord(text: string): string {
  if (ASCII_WORD.test(text)) return text.toLowerCase();
  let word = normalized.get(text);
  if (word === undefined) {
    if (normalized.size >= MAX_MEMO) normalized.clear();
    word = normalizeText(text);
    normalized.set(text, word);
  }
  return word;
}

function isCapitalized(token: Token): boolean {
  if (token.script !== 'latin') return false;
  const first = token.text[0]!;
  return first !== first.toLowerCase() && first === first.toUpperCase();
}

function isYear(text: string): boolean {
  if (text.length !== 4) return false;
  const value = Number(text);
  return value >= 1000 && value <= 2099;
}

/** Reads the answer cues of one sentence (or any text) in a single pass over its tokens. */
export function answerCues(text: string): AnswerCues {
  const tokens = tokenize(text);
  return cuesOfTokens(tokens, tokens.map((token) => normalizedWord(token.text)), 0, tokens.length);
}

/**
 * The answer cues of the sentence made of `tokens[from, to)`, whose normalised texts are
 * `words[from, to)` (`normalizedWord`): lets a caller that tokenised a whole chunk once read every
 * sentence's cues without tokenising again.
 */
export function cuesOfTokens(tokens: readonly Token[], words: readonly string[], from: number, to: number): AnswerCues {
  const cues: AnswerCues = { time: false, quantity: false, person: false, place: false, reason: false, definition: false };
  let capitalizedRun = 0;
  let previous = '';
  for (let index = from; index < to; index++) {
    const token = tokens[index]!;
    const word = words[index]!;
    if (token.script === 'digit') {
      cues.quantity = true;
      if (isYear(word)) cues.time = true;
    }
    if (NUMBER_WORDS.has(word)) cues.quantity = true;
    if (MONTHS.has(word) || TIME_WORDS.has(word)) cues.time = true;
    if (PERSON_WORDS.has(word)) cues.person = true;
    if (PLACE_WORDS.has(word)) cues.place = true;
    if (REASON_WORDS.has(word)) cues.reason = true;
    if (DEFINITION_WORDS.has(word) || (ARTICLES.has(word) && DEFINITION_VERBS.has(previous))) cues.definition = true;
    // A capitalised Latin word that does not open the sentence: two in a row (joined by “of”, “de”,
    // “al” …) read as a name; one after a place preposition as a place.
    if (isCapitalized(token) && index > from) {
      capitalizedRun += 1;
      if (capitalizedRun >= 2) cues.person = true;
      if (PLACE_PREPOSITIONS.has(previous)) cues.place = true;
    } else if (!(capitalizedRun > 0 && NAME_CONNECTORS.has(word))) {
      capitalizedRun = 0;
    }
    previous = word;
  }
  return cues;
}
