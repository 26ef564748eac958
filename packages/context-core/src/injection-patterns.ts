import { normalizeText } from '@zerda/text';

/**
 * Prompt-injection phrasings, written against *normalised* text (lower case, Arabic alef variants
 * unified to ا, ى → ي, harakat and tatweel removed, whitespace collapsed to one space, invisible
 * format characters removed). They aim at instructions addressed to a model, not at prose about
 * prompts: “you are now” alone would flag every “you are now logged in” in a manual, so it needs a
 * role word after it.
 */
const START = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';

const ENGLISH_SOURCES = [
  // ignore / disregard / forget (all) previous instructions
  `(?:ignore|disregard|forget|skip|override|bypass)(?: (?:all|any|every|the|your|my|these|those|of))* (?:previous|prior|above|earlier|preceding|former|original|initial|system|safety) (?:instructions?|prompts?|rules|directions|directives|guidelines|messages?|context|commands?|constraints)`,
  // disregard the above / forget everything above
  `(?:disregard|ignore|forget)(?: (?:all|everything|anything))?(?: (?:the|that|what is|what's|written))? (?:above|before this|previously said)`,
  `forget (?:everything|all) (?:you (?:were|have been) told|you know|above)`,
  // you are now <a role>
  `you are now (?:a |an |the |my |in |no longer )?(?:dan|jailbroken|unrestricted|unfiltered|uncensored|evil|free|developer mode|(?:[\\p{L}-]+ )?(?:ai|assistant|chatbot|bot|model|llm|language model|persona|character))`,
  // from now on you will …
  `from now on,? you (?:will|must|are|shall|should)`,
  // system prompt exfiltration / replacement
  `(?:reveal|show|print|display|repeat|output|leak|dump|tell me|give me|ignore|override|replace|disregard)(?: me)? (?:your|the|this) (?:system prompt|system message|initial instructions|hidden instructions|original instructions|secret instructions)`,
  `new system (?:prompt|message|instructions)`,
  `do not (?:follow|obey) (?:the |your |any )?(?:previous|prior|above|original|system) (?:instructions|rules|prompt)`,
  `act as (?:if you (?:are|were) )?(?:an? )?(?:unrestricted|jailbroken|unfiltered|dan)`,
];

const CHAT_MARKERS = ['<\\|im_start\\|>', '<\\|im_end\\|>', '<\\|(?:system|user|assistant|endoftext)\\|>', '\\[/?inst\\]', '<</?sys>>'];

const ARABIC_NOUNS = '(?:ال)?(?:تعليمات|اوامر|ارشادات|توجيهات|قواعد|قيود)';
const ARABIC_SOURCES = [
  // تجاهل (كل/جميع) التعليمات (السابقة) — ignore (all) the (previous) instructions
  `(?:تجاهل|تجاهلي|تجاهلوا|اهمل|اهملي|انس|انسي|انسوا|تخط|تخطي|تجاوز)(?: (?:كل|جميع|كافة|كافه|جميعا))? ${ARABIC_NOUNS}(?: (?:ال)?(?:سابقة|سابقه|سابقين|اعلاه|المذكورة|المذكوره|الاصلية|الاصليه|الاولي|السابقة))?`,
  // انس/تجاهل كل ما سبق — forget everything above
  `(?:تجاهل|تجاهلي|اهمل|انس|انسي|انسوا)(?: (?:كل|جميع))? ما (?:سبق|ورد اعلاه|قيل|ذكر سابقا|قلته)`,
  // أنت الآن <role> — you are now …
  `انت الان (?:مساعد|نموذج|روبوت|بوت|ذكاء|شخصية|شخصيه|في وضع|حر|غير مقيد|بلا قيود)`,
  // من الآن فصاعدا أنت/ستكون — from now on you …
  `من الان فصاعدا (?:انت|ستكون|يجب|عليك)`,
  // اكشف/اعرض موجه النظام — reveal the system prompt
  `(?:اكشف|اظهر|اعرض|اطبع|كرر|اعطني|اخبرني ب|سرب)(?: لي)?(?: عن)? (?:موجه|تعليمات|رسالة|رساله|اوامر|برومبت) النظام`,
  `(?:موجه|تعليمات|رسالة|رساله) النظام (?:الجديد|الجديدة|الجديده)`,
  // لا تتبع التعليمات — do not follow the instructions
  `لا (?:تتبع|تطع|تلتزم ب) ?${ARABIC_NOUNS}`,
];

/** The compiled patterns (global, Unicode). Shared; callers must reset `lastIndex` or use matchAll. */
export const INJECTION_PATTERNS: readonly RegExp[] = [
  ...ENGLISH_SOURCES.map((source) => new RegExp(`${START}${source}${END}`, 'gu')),
  ...CHAT_MARKERS.map((source) => new RegExp(source, 'gu')),
  ...ARABIC_SOURCES.map((source) => new RegExp(`${START}${source}${END}`, 'gu')),
];

/** Normalised text plus, for each of its UTF-16 units, the span of the original text it came from. */
export interface NormalizedWithOffsets {
  text: string;
  /** `starts[j]` / `ends[j]`: the original span that produced normalised unit `j`. */
  starts: number[];
  ends: number[];
}

const INVISIBLE = /^\p{Cf}$/u;
const WHITESPACE = /^\s$/u;
const SKIP = 1;
const SPACE = 2;
const KEEP = 3;
/** Per BMP code unit (not a surrogate): SKIP (invisible), SPACE (whitespace) or KEEP, filled on first sight (0: not yet). */
const unitKinds = new Uint8Array(0x10000);
/** Per BMP code unit: its normalizeText, filled on first sight. */
const unitNormalized: Array<string | undefined> = new Array(0x10000);

function kindOf(character: string): number {
  return INVISIBLE.test(character) ? SKIP : WHITESPACE.test(character) ? SPACE : KEEP;
}

/**
 * Normalises `text` one code point at a time with @zerda/text's `normalizeText`, collapses
 * whitespace and drops invisible format characters (zero-width joiners, bidi marks) that would
 * otherwise hide a phrase from a pattern, while remembering where every normalised character came
 * from — so that a match can be redacted in the original text. A code point's class and
 * normalisation depend on nothing else, so those of BMP characters are computed once per process.
 */
export function normalizeWithOffsets(text: string): NormalizedWithOffsets {
  const memo = new Map<string, string>();
  const pieces: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let previousSpace = true;
  const length = text.length;
  for (let offset = 0; offset < length; ) {
    const start = offset;
    const unit = text.charCodeAt(offset);
    let kind: number;
    let normalized: string | undefined;
    if (unit < 0xd800 || unit > 0xdfff) {
      offset++;
      kind = unitKinds[unit]!;
      if (kind === 0) unitKinds[unit] = kind = kindOf(text[start]!);
      if (kind === KEEP) {
        normalized = unitNormalized[unit];
        if (normalized === undefined) unitNormalized[unit] = normalized = normalizeText(text[start]!);
      }
    } else {
      // A surrogate pair is one code point; a lone surrogate is one too (as `for…of` yields it).
      const next = offset + 1 < length ? text.charCodeAt(offset + 1) : 0;
      offset += unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
      const character = text.slice(start, offset);
      kind = kindOf(character);
      if (kind === KEEP) {
        normalized = memo.get(character);
        if (normalized === undefined) {
          normalized = normalizeText(character);
          memo.set(character, normalized);
        }
      }
    }
    if (kind === SKIP) continue;
    if (kind === SPACE) {
      if (!previousSpace) {
        pieces.push(' ');
        starts.push(start);
        ends.push(offset);
        previousSpace = true;
      } else if (ends.length > 0) {
        ends[ends.length - 1] = offset;
      }
      continue;
    }
    const value = normalized as string;
    for (let k = 0; k < value.length; k++) {
      starts.push(start);
      ends.push(offset);
    }
    if (value.length > 0) {
      pieces.push(value);
      previousSpace = false;
    }
  }
  return { text: pieces.join(''), starts, ends };
}

/** Spans `[start, end)` of the original text where an injection phrasing occurs, merged and sorted. */
export function findInjections(text: string): Array<{ start: number; end: number; match: string }> {
  const normalized = normalizeWithOffsets(text);
  const spans: Array<{ start: number; end: number }> = [];
  for (const pattern of INJECTION_PATTERNS) {
    for (const match of normalized.text.matchAll(pattern)) {
      if (match[0].length === 0) continue;
      const first = match.index;
      const last = first + match[0].length - 1;
      spans.push({ start: normalized.starts[first] as number, end: normalized.ends[last] as number });
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Array<{ start: number; end: number; match: string }> = [];
  for (const span of spans) {
    const previous = merged[merged.length - 1];
    if (previous && span.start <= previous.end) {
      previous.end = Math.max(previous.end, span.end);
      previous.match = text.slice(previous.start, previous.end);
    } else merged.push({ ...span, match: text.slice(span.start, span.end) });
  }
  return merged;
}
