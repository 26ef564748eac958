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
  /** Budget (in the active length counter's unit) that suits this query's complexity. */
  suggestedBudget: number;
  /** How many chunks suit this query's complexity. */
  suggestedChunks: number;
}
