import { optionalBoolean, optionalObject, rejectUnknownKeys, requireString } from './input-validation.js';

/** Optional Arabic foldings that trade precision for recall. Both default to false. */
export interface ArabicNormalizeOptions {
  /** Fold teh marbuta ة to heh ه (common spelling variation at word ends). Default false. */
  tehMarbuta?: boolean;
  /**
   * Fold hamza on a seat to the bare seat: ؤ → و and ئ → ي. A standalone hamza ء is kept, because
   * dropping it can empty short words or merge unrelated ones. Default false.
   */
  hamzaSeats?: boolean;
}

// Harakat, tanween, shadda, sukun, the extended marks U+0653–U+065F, dagger alef, Quranic
// annotation marks, the honorific marks U+0610–U+061A, and tatweel. U+0653–U+0655 (madda and
// hamza above/below) are handled first, see DECOMPOSED_SEAT.
const ARABIC_MARKS = /[\u0610-\u061A\u064B-\u0652\u0656-\u065F\u0670\u06D6-\u06ED\u0640]/g;
// A seat letter followed by a combining madda/hamza is the decomposed spelling of أ إ آ ؤ ئ.
const DECOMPOSED_SEAT = /([\u0627\u0648\u064A\u0649]?)[\u0653-\u0655]+/g;
const ARABIC_VARIANTS = /[\u0622\u0623\u0625\u0671\u0672\u0673\u0675\u0649\u06CC\u06A9]/g;
const TEH_MARBUTA = /\u0629/g;
const HAMZA_SEATS = /[\u0624\u0626]/g;
// Anything in the Arabic blocks; text without it is returned untouched (the common English case).
const HAS_ARABIC_BLOCK = /[\u0600-\u06FF]/;

const VARIANT_TARGET: Record<string, string> = {
  '\u0622': '\u0627', // آ
  '\u0623': '\u0627', // أ
  '\u0625': '\u0627', // إ
  '\u0671': '\u0627', // ٱ alef wasla
  '\u0672': '\u0627', // ٲ wavy hamza above
  '\u0673': '\u0627', // ٳ wavy hamza below
  '\u0675': '\u0627', // ٵ high hamza alef
  '\u0649': '\u064A', // ى → ي
  '\u06CC': '\u064A', // Farsi yeh ی → ي
  '\u06A9': '\u0643', // keheh ک → ك
};

const SEAT_WITH_HAMZA: Record<string, string> = {
  '\u0627': '\u0627', // alef variants all fold to bare alef anyway
  '\u0648': '\u0624', // و + hamza → ؤ
  '\u064A': '\u0626', // ي + hamza → ئ
  '\u0649': '\u0626', // ى + hamza → ئ
};

function resolveArabicOptions(options: unknown, field: string): { tehMarbuta: boolean; hamzaSeats: boolean } {
  const record = optionalObject(options, field);
  if (record === undefined) return { tehMarbuta: false, hamzaSeats: false };
  rejectUnknownKeys(record, ['tehMarbuta', 'hamzaSeats'], field);
  return {
    tehMarbuta: optionalBoolean(record.tehMarbuta, `${field}.tehMarbuta`) ?? false,
    hamzaSeats: optionalBoolean(record.hamzaSeats, `${field}.hamzaSeats`) ?? false,
  };
}

/** Internal: normalizeArabic on already validated, resolved options (the analyzer's hot path). */
export function normalizeArabicResolved(text: string, tehMarbuta: boolean, hamzaSeats: boolean): string {
  if (!HAS_ARABIC_BLOCK.test(text)) return text;
  let result = text.replace(ARABIC_MARKS, '');
  if (result.includes('\u0653') || result.includes('\u0654') || result.includes('\u0655')) {
    result = result.replace(DECOMPOSED_SEAT, (_match, seat: string) => (seat === '' ? '' : (SEAT_WITH_HAMZA[seat] ?? seat)));
  }
  result = result.replace(ARABIC_VARIANTS, (letter) => VARIANT_TARGET[letter] ?? letter);
  if (tehMarbuta) result = result.replace(TEH_MARBUTA, '\u0647');
  if (hamzaSeats) result = result.replace(HAMZA_SEATS, (letter) => (letter === '\u0624' ? '\u0648' : '\u064A'));
  return result;
}

/**
 * Arabic orthographic normalisation for search. Strips harakat and tanween (U+064B–U+0652), the
 * extended marks U+0653–U+065F, dagger alef (U+0670), Quranic annotation marks (U+06D6–U+06ED),
 * honorific marks (U+0610–U+061A) and tatweel (U+0640); unifies أ إ آ ٱ (and ٲ ٳ ٵ) to ا, ى and
 * Farsi ی to ي, keheh ک to ك; decomposed hamza/madda sequences fold like their composed letters.
 * Optional: ة → ه, ؤ → و, ئ → ي. Non-Arabic text is returned unchanged. Idempotent.
 */
export function normalizeArabic(text: string, options?: ArabicNormalizeOptions): string {
  requireString(text, 'text');
  const resolved = resolveArabicOptions(options, 'options');
  return normalizeArabicResolved(text, resolved.tehMarbuta, resolved.hamzaSeats);
}

const INDIC_DIGITS = /[\u0660-\u0669\u06F0-\u06F9]/g;
const HAS_INDIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/;

/** Maps Arabic-Indic digits ٠–٩ (U+0660–U+0669) and Persian digits ۰–۹ (U+06F0–U+06F9) to ASCII 0–9; everything else is unchanged. */
export function foldDigits(text: string): string {
  requireString(text, 'text');
  return foldDigitsUnchecked(text);
}

/** Internal: foldDigits without validation. */
export function foldDigitsUnchecked(text: string): string {
  if (!HAS_INDIC_DIGIT.test(text)) return text;
  return text.replace(INDIC_DIGITS, (digit) => {
    const code = digit.charCodeAt(0);
    return String.fromCharCode(48 + (code >= 0x06f0 ? code - 0x06f0 : code - 0x0660));
  });
}

const ASCII_ONLY = /^[\x00-\x7F]*$/;
// ASCII plus the core Arabic block (letters, harakat, tatweel, dagger alef, digits, ، ؛ ؟): NFKC
// changes nothing here that normalizeArabic does not fold the same way (its only compositions are
// hamza/madda on a seat), and there are no format characters, so the two NFKC passes can be skipped.
const SIMPLE_ARABIC = /^[\x00-\x7F\u060C\u061B\u061F\u0621-\u065F\u0660-\u0669\u0670\u06F0-\u06F9]*$/;
// Format characters: bidi controls and marks, zero-width (non-)joiners and spaces, soft hyphen,
// BOM, Arabic letter mark, tag characters. Invisible, so they must not make two spellings differ.
const FORMAT_CHARACTERS = /\p{Cf}/gu;
const NEEDS_FIXPOINT_CHECK = /[\uD800-\uDFFF\p{M}\p{Cf}]/u;

function normalizeOnce(text: string, tehMarbuta: boolean, hamzaSeats: boolean): string {
  const composed = text.normalize('NFKC');
  const visible = composed.replace(FORMAT_CHARACTERS, '').toLowerCase();
  const arabic = normalizeArabicResolved(visible, tehMarbuta, hamzaSeats);
  // Removing marks and format characters can bring a base letter next to a combining mark it was
  // separated from; composing once more keeps the common case idempotent in one pass.
  return foldDigitsUnchecked(arabic).normalize('NFKC');
}

/** Internal: normalizeText on validated options. */
export function normalizeTextResolved(text: string, tehMarbuta: boolean, hamzaSeats: boolean): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  if (SIMPLE_ARABIC.test(text)) return foldDigitsUnchecked(normalizeArabicResolved(text.toLowerCase(), tehMarbuta, hamzaSeats));
  let result = normalizeOnce(text, tehMarbuta, hamzaSeats);
  // Rare inputs need another pass: removing a mark or format character can join two lone
  // surrogates into a letter that NFKC and lower-casing then change ("\uD835" + U+0653 +
  // "\uDCD0" → 𝓐 → A → a). Only input with surrogates, marks or format characters can be
  // affected, so other text is not checked.
  if (NEEDS_FIXPOINT_CHECK.test(text)) {
    for (let pass = 0; pass < 4; pass++) {
      const again = normalizeOnce(result, tehMarbuta, hamzaSeats);
      if (again === result) break;
      result = again;
    }
  }
  return result;
}

/**
 * Full search normalisation: Unicode NFKC (presentation forms, ligatures, full-width letters),
 * removal of invisible format characters (bidi marks, zero-width joiners, soft hyphen), lower
 * case, {@link normalizeArabic}, and Arabic-Indic/Persian digits to ASCII. It does not trim or
 * collapse whitespace, so line structure survives. Idempotent.
 */
export function normalizeText(text: string, options?: ArabicNormalizeOptions): string {
  requireString(text, 'text');
  const resolved = resolveArabicOptions(options, 'options');
  return normalizeTextResolved(text, resolved.tehMarbuta, resolved.hamzaSeats);
}
