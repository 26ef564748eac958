import { BoundedCache, normalizeText, visitTokens, type TokenScript } from '@zerda/text';
import type { AnswerType } from '@zerda/types';

/**
 * What kinds of answer a sentence can hold, read off its words in one pass (English and Arabic):
 * a time (a year, a month, a century, عام، القرن …), a quantity (any number, number words),
 * a person (a run of capitalised words; ابن، الملك …), a place (a capitalised word after in/at/from;
 * مدينة، تقع …), a reason (because, بسبب …), a definition (“is a”, يعرف …). Linear in the text.
 */
export type AnswerCues = Record<Exclude<AnswerType, 'other'>, boolean>;

/** The normalised words of a whitespace-separated list. */
const words = (list: string): string[] => list.split(/\s+/u).filter(Boolean).map((word) => normalizeText(word));

// Each cue word list is one bit; one map holds every word's bits, so a token costs one lookup.
const MONTH = 1;
const TIME_WORD = 2;
const NUMBER_WORD = 4;
const PERSON_WORD = 8;
const PLACE_WORD = 16;
const PLACE_PREPOSITION = 32;
const REASON_WORD = 64;
const DEFINITION_VERB = 128;
const ARTICLE = 256;
const DEFINITION_WORD = 512;
const NAME_CONNECTOR = 1024;

const CUE_WORDS = new Map<string, number>();
const addWords = (bit: number, list: string): void => {
  for (const word of words(list)) CUE_WORDS.set(word, (CUE_WORDS.get(word) ?? 0) | bit);
};
addWords(MONTH, `
  january february march april may june july august september october november december
  jan feb mar apr jun jul aug sep sept oct nov dec
  يناير فبراير مارس أبريل ابريل مايو يونيو يوليو أغسطس اغسطس سبتمبر أكتوبر اكتوبر نوفمبر ديسمبر
  كانون شباط آذار نيسان أيار حزيران تموز آب أيلول تشرين محرم صفر ربيع جمادى رجب شعبان رمضان شوال القعدة الحجة`);
addWords(TIME_WORD, `
  century centuries decade decades bc ad bce ce ago era millennium year years
  عام العام سنة السنة سنوات القرن قرن القرون ميلادي ميلادية هجري هجرية الميلاد عقد العقد`);
addWords(NUMBER_WORD, `
  one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred hundreds thousand thousands million millions billion billions dozen half percent
  واحد اثنان اثنين ثلاث ثلاثة أربع أربعة خمس خمسة ست ستة سبع سبعة ثمان ثمانية تسع تسعة عشر عشرة عشرون عشرين مئة مائة مئات ألف آلاف الف مليون ملايين مليار نصف ربع بالمئة بالمائة`);
addWords(PERSON_WORD, `
  بن ابن أبو ابو بنت الملك الملكة الأمير الأميرة الرئيس الشيخ السلطان الخليفة الإمام الامام الشاعر الكاتب العالم المؤرخ الفيلسوف مؤسس`);
addWords(PLACE_WORD, `
  مدينة المدينة دولة الدولة عاصمة العاصمة محافظة منطقة جنوب شمال شرق غرب تقع يقع قرية جزيرة ولاية بلدة إقليم قارة بحر نهر جبل`);
addWords(PLACE_PREPOSITION, 'in at from near into across');
addWords(REASON_WORD, `
  because due caused causes cause result therefore consequently owing thanks led
  بسبب لأن لان نتيجة إذ لذلك بفضل أدى ادى يؤدي سبب بسبب`);
addWords(DEFINITION_VERB, 'is are was were');
addWords(ARTICLE, 'a an the');
addWords(DEFINITION_WORD, `
  refers defined definition known denotes means
  هو هي يعرف تعرف يعد تعد يطلق عبارة يسمى تسمى`);
addWords(NAME_CONNECTOR, 'of the de da di von van al el bin ibn la le');

/** Normalised token texts, memoised (cue words repeat across sentences), bounded in entries and characters. */
const normalized = new BoundedCache<string, string>(50_000, { maxWeight: 2_000_000, maxEntryWeight: 256 });
function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** A token's text as cue tables hold words: lower case, `normalizeText` for non-ASCII (memoised). */
export function normalizedWord(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  let word = normalized.get(text);
  if (word === undefined) {
    word = normalizeText(text);
    normalized.set(text, word);
  }
  return word;
}

function isCapitalized(word: string, script: TokenScript): boolean {
  if (script !== 'latin') return false;
  const code = word.charCodeAt(0);
  if (code < 0x80) return code >= 0x41 && code <= 0x5a;
  const first = word[0]!;
  return first !== first.toLowerCase() && first === first.toUpperCase();
}

function isYear(text: string): boolean {
  if (text.length !== 4) return false;
  const value = Number(text);
  return value >= 1000 && value <= 2099;
}

// One bit per answer type in a cue mask.
const TIME = 1;
const QUANTITY = 2;
const PERSON = 4;
const PLACE = 8;
const REASON = 16;
const DEFINITION = 32;

/** Every set of cues, by mask: frozen and shared (a chunk analysis keeps one reference per sentence, not an object). */
const CUE_SETS: readonly AnswerCues[] = Array.from({ length: 64 }, (_, mask) =>
  Object.freeze({
    time: (mask & TIME) !== 0,
    quantity: (mask & QUANTITY) !== 0,
    person: (mask & PERSON) !== 0,
    place: (mask & PLACE) !== 0,
    reason: (mask & REASON) !== 0,
    definition: (mask & DEFINITION) !== 0,
  }),
);

/**
 * Reads the answer cues of one sentence token by token, in a single pass: {@link CueReader.add}
 * each token of the sentence in order, then {@link CueReader.cues}; {@link CueReader.reset} starts
 * the next sentence. Lets a caller that walks a whole chunk's tokens once read every sentence's cues.
 */
export class CueReader {
  #mask = 0;
  #capitalizedRun = 0;
  #previous = 0;
  #first = true;

  reset(): void {
    this.#mask = 0;
    this.#capitalizedRun = 0;
    this.#previous = 0;
    this.#first = true;
  }

  /** One token of the sentence: its text as in the source, and its script (`tokenize`). */
  add(text: string, script: TokenScript): void {
    const word = normalizedWord(text);
    let mask = this.#mask;
    if (script === 'digit') {
      mask |= QUANTITY;
      if (isYear(word)) mask |= TIME;
    }
    const bits = CUE_WORDS.get(word) ?? 0;
    if (bits !== 0) {
      if (bits & NUMBER_WORD) mask |= QUANTITY;
      if (bits & (MONTH | TIME_WORD)) mask |= TIME;
      if (bits & PERSON_WORD) mask |= PERSON;
      if (bits & PLACE_WORD) mask |= PLACE;
      if (bits & REASON_WORD) mask |= REASON;
      if (bits & DEFINITION_WORD || (bits & ARTICLE && this.#previous & DEFINITION_VERB)) mask |= DEFINITION;
    }
    // A capitalised Latin word that does not open the sentence: two in a row (joined by “of”, “de”,
    // “al” …) read as a name; one after a place preposition as a place.
    if (!this.#first && isCapitalized(text, script)) {
      this.#capitalizedRun += 1;
      if (this.#capitalizedRun >= 2) mask |= PERSON;
      if (this.#previous & PLACE_PREPOSITION) mask |= PLACE;
    } else if (!(this.#capitalizedRun > 0 && bits & NAME_CONNECTOR)) {
      this.#capitalizedRun = 0;
    }
    this.#previous = bits;
    this.#first = false;
    this.#mask = mask;
  }

  /** The cues of the tokens added since the last reset (a shared, frozen object). */
  cues(): AnswerCues {
    return CUE_SETS[this.#mask]!;
  }
}

/** Reads the answer cues of one sentence (or any text) in a single pass over its tokens. */
export function answerCues(text: string): AnswerCues {
  const reader = new CueReader();
  // Token by token without Token objects (a megabyte is 200,000 of them, and their garbage made
  // the cost of a long text grow faster than the text).
  visitTokens(text, (start, end, script) => reader.add(text.slice(start, end), script));
  return { ...reader.cues() };
}

