/** The language of a text, as zerda's analysis detects it. */
export type Language = 'ar' | 'en' | 'mixed' | 'other';

/** Share of letters per script, each in [0, 1], summing to 1 when the text has letters (all 0 otherwise). */
export interface ScriptMix {
  arabic: number;
  latin: number;
  other: number;
}

export type QueryComplexity = 'simple' | 'moderate' | 'complex';
export type QueryIntent = 'definition' | 'how-to' | 'comparison' | 'factual' | 'list' | 'other';
/**
 * What kind of answer the question asks for, from its question words (English and Arabic): a time
 * (when, متى), a quantity (how many, كم), a person (who, من هو), a place (where, أين), a reason
 * (why, لماذا), a definition (what is X, ما هو), or `other`. The composer prefers sentences that
 * hold that kind of information (a year for `time`, a number for `quantity` …).
 */
export type AnswerType = 'time' | 'quantity' | 'person' | 'place' | 'reason' | 'definition' | 'other';

/** What the query analyzer learned about a query. */
export interface QueryAnalysis {
  /** The literal query text the caller passed to `run()`. */
  query: string;
  /** The text actually analysed and retrieved with (the query enriched with conversation history, or the query itself). */
  effectiveQuery: string;
  language: Language;
  scriptMix: ScriptMix;
  /** Analysed keywords (normalised, stopwords removed, stemmed where the language allows), unique, in query order. */
  keywords: string[];
  complexity: QueryComplexity;
  intent: QueryIntent;
  /** The kind of answer asked for (optional: analyzers that do not detect it leave it out, read as `other`). */
  answerType?: AnswerType;
  /** Budget (in the active length counter's unit) that suits this query's complexity. */
  suggestedBudget: number;
  /** How many chunks suit this query's complexity. */
  suggestedChunks: number;
}
