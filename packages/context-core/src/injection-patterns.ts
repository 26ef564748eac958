import { BoundedCache, normalizeText } from '@zerda/text';
import { invalidArgument } from '@zerda/types';

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

/**
 * The literals one of which every match of a phrasing (a source of {@link ENGLISH_SOURCES} or
 * {@link ARABIC_SOURCES}) starts with — its literal opening (letters and spaces, up to the first
 * group or quantified character: "from now on", "انت الان "), or the alternatives of its opening
 * group when each is a plain literal — or undefined when the source does not open that way (or has
 * alternatives at its top level). Read off the source itself, so it cannot drift from the pattern.
 */
export function openingWords(source: string): string[] | undefined {
  const literal = /^[\p{L} ]+$/u;
  if (hasTopLevelAlternative(source)) return undefined;
  if (source.startsWith('(?:')) {
    let depth = 0;
    for (let index = 0; index < source.length; index++) {
      const character = source[index];
      if (character === '\\') return undefined;
      if (character === '(') depth += 1;
      if (character !== ')') continue;
      depth -= 1;
      if (depth > 0) continue;
      // An optional or repeated opening group requires nothing.
      if (/^[?*{+]/.test(source.slice(index + 1))) return undefined;
      const alternatives = source.slice(3, index).split('|');
      return alternatives.every((alternative) => alternative.length > 0 && literal.test(alternative)) ? alternatives : undefined;
    }
    return undefined;
  }
  const prefix = /^[\p{L} ]+/u.exec(source)?.[0];
  if (prefix === undefined) return undefined;
  // A quantifier after the prefix makes its last character optional.
  const opening = /^[?*{]/.test(source.slice(prefix.length)) ? prefix.slice(0, -1) : prefix;
  return opening.trim().length > 0 ? [opening] : undefined;
}

/** Whether a regex source has a `|` outside every group and character class (then no opening is shared by all matches). */
function hasTopLevelAlternative(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (character === '\\') index++;
    else if (inClass) inClass = character !== ']';
    else if (character === '[') inClass = true;
    else if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === '|' && depth === 0) return true;
  }
  return false;
}

/** A compiled pattern, a sticky copy of it, and the literals one of which every match of it starts with. */
interface Pattern {
  sticky: RegExp;
  openings: readonly string[];
}

/**
 * The patterns by what any match of them must contain: an English phrasing a Latin letter, a chat
 * marker `<` or `[`, an Arabic phrasing an Arabic letter (normalised text has only ا–ي there). A
 * group whose witness is absent from the text cannot match and is not run: an Arabic context skips
 * the English patterns and the other way round — the same spans, a fraction of the passes.
 *
 * Every pattern has opening literals (its {@link openingWords}; a chat marker its first character):
 * one plain scan per group finds their occurrences — an alternation of literals that V8 runs far
 * faster than the patterns themselves, whose look-behind of Unicode classes would be tried at every
 * position — and a pattern is tried (sticky) only where one of its own openings occurs.
 */
interface PatternGroup {
  witness: RegExp;
  scan: RegExp;
  patterns: readonly Pattern[];
}

function patternGroup(witness: RegExp, patterns: readonly RegExp[], openingsOf: (index: number) => string[] | undefined): PatternGroup {
  const compiled = patterns.map((regex, index) => {
    const openings = openingsOf(index);
    if (openings === undefined) throw new Error(`injection pattern ${regex.source} has no opening literal`);
    return { sticky: new RegExp(regex.source, 'uy'), openings };
  });
  const literals = [...new Set(compiled.flatMap((pattern) => pattern.openings))];
  const scan = new RegExp(literals.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return { witness, scan, patterns: compiled };
}

const ARABIC_START = ENGLISH_SOURCES.length + CHAT_MARKERS.length;
const PATTERN_GROUPS: readonly PatternGroup[] = [
  patternGroup(/[a-z]/, INJECTION_PATTERNS.slice(0, ENGLISH_SOURCES.length), (index) => openingWords(ENGLISH_SOURCES[index]!)),
  // A chat marker opens with `<` or an escaped `[`.
  patternGroup(/[<[]/, INJECTION_PATTERNS.slice(ENGLISH_SOURCES.length, ARABIC_START), (index) => [CHAT_MARKERS[index]!.startsWith('\\') ? CHAT_MARKERS[index]![1]! : CHAT_MARKERS[index]![0]!]),
  patternGroup(/[\u0621-\u064A]/, INJECTION_PATTERNS.slice(ARABIC_START), (index) => openingWords(ARABIC_SOURCES[index]!)),
];

/** Whether one of `openings` starts at `at` of `text` (a loop, not a closure per occurrence and pattern). */
function opensAt(openings: readonly string[], text: string, at: number): boolean {
  for (const word of openings) if (text.startsWith(word, at)) return true;
  return false;
}

/** Where a pattern's last match ended (it is tried again only from there on), per pattern of a group. */
const PATTERN_ENDS = new Int32Array(Math.max(ENGLISH_SOURCES.length, CHAT_MARKERS.length, ARABIC_SOURCES.length));

/** Normalised text plus where each of its UTF-16 units came from in the original text. */
export interface NormalizedWithOffsets {
  text: string;
  /** The offset in the original text where the character that produced normalised unit `j` starts. */
  originalStart(j: number): number;
  /** The offset in the original text just past the character (or whitespace run) that produced unit `j`. */
  originalEnd(j: number): number;
}

const INVISIBLE = /^\p{Cf}$/u;
const WHITESPACE = /^\s$/u;
/** What one non-ASCII character becomes: dropped (invisible), whitespace, or its normalised text. */
type CharacterClass = { kind: 'invisible' } | { kind: 'space' } | { kind: 'text'; text: string };
/** The class of every astral character (by its surrogate pair) seen so far: shared by all calls, bounded. */
const CHARACTER_CLASSES = new BoundedCache<number, CharacterClass>(8192);
/**
 * The class of every BMP character seen so far, per block of 256 (at most 65,536 entries in all, so
 * bounded by construction): two array reads per character instead of a hash lookup.
 */
const BMP_CLASSES: Array<Array<CharacterClass | undefined> | undefined> = new Array(256);

/**
 * 1 for a BMP code unit (not ASCII, not a surrogate) known to normalise to itself and be visible,
 * non-space (most Arabic letters): a run of them is skipped in a tight loop. Filled as characters
 * are classified; 64 KB, bounded by construction.
 */
const SELF_NORMAL = new Uint8Array(0x10000);

function classifyCharacter(character: string): CharacterClass {
  return INVISIBLE.test(character) ? { kind: 'invisible' } : WHITESPACE.test(character) ? { kind: 'space' } : { kind: 'text', text: normalizeText(character) };
}
const ASCII_SPACE = new Uint8Array(128);
for (const code of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[code] = 1;

/**
 * The offset map of a normalisation as segments of the normalised text: a *copy* segment maps its
 * units one to one onto the original (ASCII runs, single spaces), a *block* segment maps every unit
 * onto one original span (a character that normalised to several units, a collapsed whitespace
 * run). English text is a handful of copy segments, so the map stays small and lookups are a
 * binary search.
 */
class OffsetMap {
  private normalizedStarts = new Int32Array(64);
  private originalStarts = new Int32Array(64);
  private originalEnds = new Int32Array(64);
  private copy = new Uint8Array(64);
  private count = 0;
  /** Units of normalised text emitted so far. */
  length = 0;

  /** Appends `units` normalised units copied one to one from the original at `originalStart`. */
  addCopy(originalStart: number, units: number): void {
    const last = this.count - 1;
    if (last >= 0 && this.copy[last] === 1 && this.originalEnds[last] === originalStart) {
      this.originalEnds[last] = originalStart + units;
    } else {
      this.push(originalStart, originalStart + units, 1);
    }
    this.length += units;
  }

  /** Appends `units` normalised units that all came from the original span `[originalStart, originalEnd)`. */
  addBlock(originalStart: number, originalEnd: number, units: number): void {
    this.push(originalStart, originalEnd, 0);
    this.length += units;
  }

  /** Extends the original span of the last unit to `originalEnd` (whitespace folded into it). */
  extendLast(originalEnd: number): void {
    const last = this.count - 1;
    if (last < 0) return;
    if (this.copy[last] === 1) {
      // Split the copy segment so that only its last unit's span grows.
      const lastUnitStart = this.originalEnds[last]! - 1;
      if (this.originalEnds[last]! - this.originalStarts[last]! === 1) {
        this.copy[last] = 0;
      } else {
        this.originalEnds[last] = lastUnitStart;
        this.push(lastUnitStart, lastUnitStart + 1, 0);
        this.normalizedStarts[this.count - 1] = this.length - 1;
      }
    }
    this.originalEnds[this.count - 1] = originalEnd;
  }

  originalStart(unit: number): number {
    const k = this.segmentOf(unit);
    return this.copy[k] === 1 ? this.originalStarts[k]! + (unit - this.normalizedStarts[k]!) : this.originalStarts[k]!;
  }

  originalEnd(unit: number): number {
    const k = this.segmentOf(unit);
    return this.copy[k] === 1 ? this.originalStarts[k]! + (unit - this.normalizedStarts[k]!) + 1 : this.originalEnds[k]!;
  }

  private segmentOf(unit: number): number {
    let low = 0;
    let high = this.count - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.normalizedStarts[middle]! <= unit) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private push(originalStart: number, originalEnd: number, copy: 0 | 1): void {
    if (this.count === this.copy.length) {
      const grow = <T extends Int32Array | Uint8Array>(array: T): T => {
        const grown = new (array.constructor as new (length: number) => T)(array.length * 2);
        grown.set(array);
        return grown;
      };
      this.normalizedStarts = grow(this.normalizedStarts);
      this.originalStarts = grow(this.originalStarts);
      this.originalEnds = grow(this.originalEnds);
      this.copy = grow(this.copy);
    }
    this.normalizedStarts[this.count] = this.length;
    this.originalStarts[this.count] = originalStart;
    this.originalEnds[this.count] = originalEnd;
    this.copy[this.count] = copy;
    this.count++;
  }
}

/**
 * Normalises `text` one code point at a time with @zerda/text's `normalizeText`, collapses
 * whitespace and drops invisible format characters (zero-width joiners, bidi marks) that would
 * otherwise hide a phrase from a pattern, while remembering where every normalised character came
 * from — so that a match can be redacted in the original text. One pass, linear in the text:
 * ASCII runs are copied (lower-cased) as they are, every other distinct character is classified once.
 */
export function normalizeWithOffsets(text: string): NormalizedWithOffsets {
  const memo = CHARACTER_CLASSES;
  const pieces: string[] = [];
  // A run of non-ASCII characters that each normalise to themselves (most Arabic letters) is
  // copied as one slice when it ends, instead of one piece per character.
  let identityStart = -1;
  let identityEnd = -1;
  const map = new OffsetMap();
  // The run's units map one to one onto the original: one copy segment, added with the slice
  // (every other step that touches the map flushes the run first, so the order is kept).
  const flushIdentity = (): void => {
    if (identityStart < 0) return;
    pieces.push(text.slice(identityStart, identityEnd));
    map.addCopy(identityStart, identityEnd - identityStart);
    identityStart = -1;
  };
  let previousSpace = true;
  let offset = 0;
  const space = (start: number, end: number, single: boolean): void => {
    if (!previousSpace) {
      pieces.push(' ');
      if (single) map.addCopy(start, 1);
      else map.addBlock(start, end, 1);
      previousSpace = true;
    } else if (map.length > 0) {
      map.extendLast(end);
    }
  };
  while (offset < text.length) {
    const start = offset;
    const code = text.charCodeAt(offset);
    if (code < 128) {
      flushIdentity();
      offset++;
      if (ASCII_SPACE[code] === 1) {
        space(start, offset, code === 32);
        continue;
      }
      // A run of visible ASCII characters maps one to one: lower-cased as one slice. A single space
      // between two of them is already normal and joins the run, so English prose is a few slices.
      while (offset < text.length) {
        const next = text.charCodeAt(offset);
        if (next >= 128) break;
        if (ASCII_SPACE[next] === 1) {
          const after = offset + 1 < text.length ? text.charCodeAt(offset + 1) : 128;
          if (next !== 32 || after >= 128 || ASCII_SPACE[after] === 1) break;
        }
        offset++;
      }
      pieces.push(text.slice(start, offset).toLowerCase());
      map.addCopy(start, offset - start);
      previousSpace = false;
      continue;
    }
    const pair = code >= 0xd800 && code <= 0xdbff && offset + 1 < text.length && (text.charCodeAt(offset + 1) & 0xfc00) === 0xdc00;
    offset += pair ? 2 : 1;
    let kind: CharacterClass | undefined;
    if (pair) {
      const key = code * 0x10000 + text.charCodeAt(start + 1);
      kind = memo.get(key);
      if (kind === undefined) {
        kind = classifyCharacter(text.slice(start, offset));
        memo.set(key, kind);
      }
    } else {
      const block = (BMP_CLASSES[code >> 8] ??= new Array<CharacterClass | undefined>(256));
      kind = block[code & 0xff] ??= classifyCharacter(text[start]!);
    }
    if (kind.kind === 'invisible') continue;
    if (kind.kind === 'space') {
      flushIdentity();
      space(start, offset, false);
      continue;
    }
    const normalized = kind.text;
    if (normalized.length === 0) continue;
    if (offset - start === 1 && normalized.length === 1 && normalized.charCodeAt(0) === code) {
      // Itself: extend the identity run (an invisible character in between, dropped, splits it).
      if (identityStart < 0 || identityEnd !== start) {
        flushIdentity();
        identityStart = start;
      }
      if (code < 0xd800 || code > 0xdfff) SELF_NORMAL[code] = 1;
      // The characters after it that are known to be themselves join the run at once, and so does a
      // single space before another of them (it is already normal: one space between words).
      while (offset < text.length) {
        const next = text.charCodeAt(offset);
        if (next >= 128 && SELF_NORMAL[next] === 1) {
          offset++;
        } else if (next === 32 && offset + 1 < text.length && SELF_NORMAL[text.charCodeAt(offset + 1)] === 1) {
          offset += 2;
        } else break;
      }
      identityEnd = offset;
      previousSpace = false;
      continue;
    }
    flushIdentity();
    pieces.push(normalized);
    if (normalized.length === offset - start && normalized.length === 1) map.addCopy(start, 1);
    else map.addBlock(start, offset, normalized.length);
    previousSpace = false;
  }
  flushIdentity();
  return { text: pieces.join(''), originalStart: (j) => map.originalStart(j), originalEnd: (j) => map.originalEnd(j) };
}

/** Spans `[start, end)` of the original text where an injection phrasing occurs, merged and sorted. */
export function findInjections(text: string): Array<{ start: number; end: number; match: string }> {
  if (typeof text !== 'string') throw invalidArgument('text', 'a string', text);
  const normalized = normalizeWithOffsets(text);
  const spans: Array<{ start: number; end: number }> = [];
  const normalizedText = normalized.text;
  for (const { witness, scan, patterns } of PATTERN_GROUPS) {
    if (!witness.test(normalizedText)) continue;
    // Every occurrence of an opening literal, in order (the scan moves on one unit at a time, so a
    // literal starting inside another is found too); at each, the patterns it opens are tried, each
    // only at or after the end of its previous match — the same matches as a global scan of each.
    PATTERN_ENDS.fill(0);
    scan.lastIndex = 0;
    for (let found = scan.exec(normalizedText); found !== null; found = scan.exec(normalizedText)) {
      const at = found.index;
      for (let index = 0; index < patterns.length; index++) {
        if (at < PATTERN_ENDS[index]!) continue;
        const { sticky, openings } = patterns[index]!;
        if (!opensAt(openings, normalizedText, at)) continue;
        sticky.lastIndex = at;
        const match = sticky.exec(normalizedText);
        if (match === null || match[0].length === 0) continue;
        const end = at + match[0].length;
        PATTERN_ENDS[index] = end;
        spans.push({ start: normalized.originalStart(at), end: normalized.originalEnd(end - 1) });
      }
      scan.lastIndex = at + 1;
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Array<{ start: number; end: number }> = [];
  for (const span of spans) {
    const previous = merged[merged.length - 1];
    if (previous && span.start <= previous.end) previous.end = Math.max(previous.end, span.end);
    else merged.push(span);
  }
  return merged.map((span) => ({ start: span.start, end: span.end, match: text.slice(span.start, span.end) }));
}
