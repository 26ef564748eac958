import type { ZerdaError } from '@zerda/types';
import { createError } from '@zerda/types';
import { requireString } from './input-validation.js';
import { normalizeArabicResolved, normalizeTextResolved } from './normalization.js';
import { tokenScript } from './script-detection.js';

// Function words that carry no topic: articles, pronouns, auxiliaries, prepositions,
// conjunctions, common adverbs and the fragments the tokenizer leaves from contractions
// ("don't" → "don", "t").
const ENGLISH = `a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his how i if
in into is isn it its itself just let ll me more most mustn my myself no nor not now of off on once only or
other ought our ours ourselves out over own re same shan she should shouldn so some such than that the their
theirs them themselves then there these they this those through to too under until up ve very was wasn we
were weren what when where which while who whom why will with won would wouldn you your yours yourself
yourselves also however thus hence yet may might must shall upon via d s t m o y`;

// Written unvocalised; normalised at load time, so the set holds exactly what normalizeArabic
// produces (إلى → الى, أن → ان, على → علي …). Left out on purpose: أم ("or", but normalised it is
// also ام "mother") and أية ("which", normalised also اية "verse").
const ARABIC = `في من على إلى الى عن أن إن ان أو او ثم حتى إذا اذا إذ لو لولا كي لكي لكن لكنّ بل أما إما أنه أنها إنه إنها لأن لأنه كذلك لذلك هكذا
هذا هذه ذلك تلك هؤلاء أولئك هنا هناك هنالك الذي التي الذين اللذان اللتان اللاتي اللواتي اللائي ما ماذا
لماذا متى أين أي كيف كم لم لن لا ليس ليست ليسوا قد لقد كان كانت كانوا يكون تكون يكونون كن
هو هي هم هن هما أنا نحن أنت أنتم أنتن أنتما إياه إياها إياهم
مع عند عندما بين بعد قبل حول دون فوق تحت خلال ضد نحو لدى منذ مثل غير سوى
كل بعض أيضا أيضًا فقط جدا أكثر أقل كما وكما بما مما عما فيما لما إنما أنما إلا الا
و ف ب ل ك به بها بهم له لها لهم فيه فيها فيهم منه منها منهم عليه عليها عليهم إليه إليها عنه عنها
هل يا أي إلي لي لنا لك لكم بي بنا بك بكم نعم كلا
وفي ومن وعلى وإلى وعن وأن وهو وهي وهذا وهذه ولا ولم ولن وقد وكان وكانت وما ثمة حيث بينما
التى الذى`;

// The exported sets are shared by every analyzer: a caller mutating one would silently change how
// everything is indexed, so mutation throws.
class FrozenSet<T> extends Set<T> {
  private sealed = false;

  constructor(values: Iterable<T>) {
    super(values);
    this.sealed = true;
  }

  override add(value: T): this {
    if (this.sealed) throw frozen('add');
    return super.add(value);
  }

  override delete(_value: T): boolean {
    throw frozen('delete');
  }

  override clear(): void {
    throw frozen('clear');
  }
}

function frozen(operation: string): ZerdaError {
  return createError('ZERDA_UNSUPPORTED', { operation, component: 'a @zerda/text stopword set', reason: 'the set is shared and read-only; build your own Set from it' });
}

function buildSet(source: string, normalize: (word: string) => string): ReadonlySet<string> {
  const normalized: string[] = [];
  for (const word of source.split(/\s+/u)) if (word !== '') normalized.push(normalize(word));
  return new FrozenSet(normalized);
}

/** Common English function words, lower case (about 170). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = buildSet(ENGLISH, (word) => word);

/** Common Arabic function words in their normalised form ({@link normalizeArabic} with default options). */
export const ARABIC_STOPWORDS: ReadonlySet<string> = buildSet(ARABIC, (word) => normalizeArabicResolved(word, false, false));

/** Internal: the Arabic stopword set normalised with the given foldings (for analyzers that fold ة or hamza seats). */
export function arabicStopwordsFor(tehMarbuta: boolean, hamzaSeats: boolean): ReadonlySet<string> {
  if (!tehMarbuta && !hamzaSeats) return ARABIC_STOPWORDS;
  return buildSet(ARABIC, (word) => normalizeArabicResolved(word, tehMarbuta, hamzaSeats));
}

/**
 * True when `term` is a stopword of its script: Arabic terms are checked against
 * {@link ARABIC_STOPWORDS}, Latin terms against {@link ENGLISH_STOPWORDS}, after
 * {@link normalizeText} (so "The", "إلى" and "الى" are all recognised). Digits and other scripts
 * are never stopwords.
 */
export function isStopword(term: string): boolean {
  requireString(term, 'term');
  const normalized = normalizeTextResolved(term, false, false);
  switch (tokenScript(normalized)) {
    case 'arabic':
      return ARABIC_STOPWORDS.has(normalized);
    case 'latin':
      return ENGLISH_STOPWORDS.has(normalized);
    default:
      return false;
  }
}
