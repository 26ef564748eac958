import * as z from 'zod';
import { MAX_STEMMED_LENGTH, isStopword, normalizeText, truncateAtWordBoundary, words } from '@zerda/text';
import { ZerdaError, invalidArgument, parseOrThrow, resolveConfigSection, type MultiTurnConfig, type QueryAnalysis } from '@zerda/types';
import type { MultiTurnConfigInput } from './config-input.js';
import { assertKnownKeys, assertNumber, assertOptionsObject, assertString } from './validate.js';

/** One remembered exchange. */
export interface ConversationTurn {
  /** The literal query the user asked (never the enriched one). */
  query: string;
  /** A short summary of the context that answered it (its beginning, cut at a word boundary). */
  contextSummary: string;
  analysis?: QueryAnalysis;
  /** ms since epoch. */
  timestamp: number;
}

export interface AddTurnInput {
  query: string;
  /** The full context; summarised to `summaryLength` characters unless `contextSummary` is given. */
  context?: string;
  contextSummary?: string;
  analysis?: QueryAnalysis;
  timestamp?: number;
}

export interface ConversationHistoryOptions {
  /** Characters kept of a context as its summary. Default 300. */
  summaryLength?: number;
  /** Most keywords carried into an enriched query. Default 8. */
  maxKeywords?: number;
  /** A query of at most this many words counts as a follow-up even without a pronoun. Default 2. */
  shortQueryWords?: number;
  /** Clock for turn timestamps (ms). Default `Date.now`. */
  now?: () => number;
}

/** The serialised form of a history (`toJSON`). */
export interface ConversationHistoryJSON {
  version: 1;
  turns: ConversationTurn[];
}

const scriptMixSchema = z.strictObject({ arabic: z.number(), latin: z.number(), other: z.number() });
const analysisSchema = z.looseObject({
  query: z.string(),
  effectiveQuery: z.string(),
  language: z.enum(['ar', 'en', 'mixed', 'other']),
  scriptMix: scriptMixSchema,
  keywords: z.array(z.string()),
  complexity: z.enum(['simple', 'moderate', 'complex']),
  intent: z.enum(['definition', 'how-to', 'comparison', 'factual', 'list', 'other']),
  suggestedBudget: z.number().nonnegative(),
  suggestedChunks: z.number().int().nonnegative(),
});
const turnSchema = z.strictObject({
  query: z.string(),
  contextSummary: z.string(),
  analysis: analysisSchema.optional(),
  timestamp: z.number().refine(Number.isFinite, 'a finite number (ms since epoch)'),
});
const historySchema = z.strictObject({ version: z.literal(1), turns: z.array(turnSchema) });

/** Words that point back to something said before (normalised), English and Arabic. */
const ANAPHORA = new Set(
  [
    'it', 'its', 'itself', 'this', 'that', 'these', 'those', 'they', 'them', 'their', 'theirs', 'he', 'him', 'his', 'she', 'her', 'hers', 'same', 'former', 'latter', 'such',
    'هذا', 'هذه', 'ذلك', 'تلك', 'ذاك', 'هؤلاء', 'أولئك', 'هو', 'هي', 'هم', 'هن', 'هما', 'نفس', 'نفسه', 'نفسها', 'السابق', 'المذكور',
  ].map((word) => normalizeText(word)),
);
const COPULAS = new Set(['هو', 'هي', 'هم'].map((word) => normalizeText(word)));
const QUESTION_WORDS = new Set(['ما', 'من', 'ماذا', 'فما', 'وما', 'ومن'].map((word) => normalizeText(word)));
/** Openings that continue a conversation (“and …”, “what about …”, “وماذا عن …”). */
const FOLLOW_UP_OPENINGS: readonly string[][] = [['and'], ['also'], ['what', 'about'], ['how', 'about'], ['ماذا', 'عن'], ['وماذا'], ['و'], ['وما'], ['وكيف'], ['وهل'], ['ولماذا'], ['ومتى'], ['واين'], ['وكم']].map((opening) =>
  opening.map((word) => normalizeText(word)),
);

/**
 * A bounded memory of a conversation, so that follow-up questions (“and its cost?”, “وما فوائده؟”)
 * retrieve with what they refer to. Holds at most `maxTurns` turns (oldest forgotten first),
 * records the literal query of each turn, and survives restarts through `toJSON`/`fromJSON`.
 * Mutations are synchronous.
 */
export class ConversationHistory {
  /** The resolved `multiTurn` configuration section. */
  readonly config: MultiTurnConfig;
  private readonly options: Required<Omit<ConversationHistoryOptions, 'now'>> & { now: () => number };
  private list: ConversationTurn[] = [];

  constructor(config?: MultiTurnConfigInput, options: ConversationHistoryOptions = {}) {
    this.config = resolveConfigSection('multiTurn', config);
    assertOptionsObject(options, 'options');
    assertKnownKeys(options as Record<string, unknown>, ['summaryLength', 'maxKeywords', 'shortQueryWords', 'now'], 'options');
    const resolved = { summaryLength: 300, maxKeywords: 8, shortQueryWords: 2, now: Date.now, ...options };
    assertNumber(resolved.summaryLength, 'options.summaryLength', { min: 0, integer: true });
    assertNumber(resolved.maxKeywords, 'options.maxKeywords', { min: 0, integer: true });
    assertNumber(resolved.shortQueryWords, 'options.shortQueryWords', { min: 0, integer: true });
    if (typeof resolved.now !== 'function') throw invalidArgument('options.now', 'a function returning ms', resolved.now);
    this.options = resolved;
  }

  /** Remembers a turn (forgetting the oldest beyond `maxTurns`) and returns it. */
  addTurn(input: AddTurnInput): ConversationTurn {
    if (input === null || typeof input !== 'object') throw invalidArgument('turn', 'an object { query, context?, contextSummary?, analysis?, timestamp? }', input);
    assertKnownKeys(input as unknown as Record<string, unknown>, ['query', 'context', 'contextSummary', 'analysis', 'timestamp'], 'turn');
    assertString(input.query, 'turn.query');
    if (input.context !== undefined) assertString(input.context, 'turn.context');
    if (input.contextSummary !== undefined) assertString(input.contextSummary, 'turn.contextSummary');
    const analysis = input.analysis === undefined ? undefined : (parseOrThrow(analysisSchema, input.analysis, 'turn.analysis') as QueryAnalysis);
    const timestamp = input.timestamp ?? this.options.now();
    assertNumber(timestamp, 'turn.timestamp');
    const turn: ConversationTurn = {
      query: input.query,
      contextSummary: input.contextSummary ?? this.summarize(input.context ?? ''),
      timestamp,
      ...(analysis ? { analysis } : {}),
    };
    this.list.push(turn);
    if (this.list.length > this.config.maxTurns) this.list.splice(0, this.list.length - this.config.maxTurns);
    return structuredClone(turn);
  }

  /**
   * True when `query` leans on earlier turns: it has no content word of its own, is at most
   * `shortQueryWords` words long, contains a pronoun or demonstrative (it, this, they, هذا, هي …), or
   * opens like a continuation (“and …”, “what about …”, “وماذا عن …”, “وكيف …”).
   */
  needsContext(query: string): boolean {
    assertString(query, 'query');
    const tokens = words(normalizeText(query));
    if (tokens.length === 0) return false;
    if (tokens.length <= this.options.shortQueryWords) return true;
    if (tokens.every((token) => isStopword(token))) return true;
    const pointsBack = tokens.some((token, i) => {
      // “ما هو / ما هي / من هو” is the Arabic “what is / who is”: there هو and هي are a copula, not a reference.
      if (COPULAS.has(token) && QUESTION_WORDS.has(tokens[i - 1] ?? '')) return false;
      return ANAPHORA.has(token) || (/^[وف]/u.test(token) && ANAPHORA.has(token.slice(1)));
    });
    if (pointsBack) return true;
    return FOLLOW_UP_OPENINGS.some((opening) => opening.every((word, i) => tokens[i] === word));
  }

  /**
   * The query to retrieve with. When the query {@link needsContext}, the content words of the last
   * `n` turns' literal queries (most recent first, without words the query already has, at most
   * `maxKeywords`) are appended as `${query} (kw1 kw2 …)` — parentheses, not a labelled marker, so that no label word is ever retrieved with; otherwise the query is returned
   * unchanged, so a self-contained question is not steered by old topics. `n` defaults to
   * `config.enrichTurns`; `n = 0` disables enrichment. A question identical to the latest turn (a
   * retry, or a later step of a tool loop whose first step recorded it) is enriched from the turns
   * before it, exactly as it was the first time.
   */
  getEnrichedQuery(query: string, n: number = this.config.enrichTurns): string {
    assertString(query, 'query');
    assertNumber(n, 'n', { min: 0, integer: true });
    const end = this.list.length > 0 && this.list[this.list.length - 1]!.query === query ? this.list.length - 1 : this.list.length;
    if (n === 0 || end === 0 || !this.needsContext(query)) return query;
    const own = new Set(words(normalizeText(query)));
    const seen = new Set<string>();
    const keywords: string[] = [];
    for (const turn of this.list.slice(Math.max(0, end - n), end).reverse()) {
      for (const word of words(turn.query)) {
        // A "word" longer than any real word (an identifier, a run of junk) would only bloat the query.
        if (word.length > MAX_STEMMED_LENGTH) continue;
        const key = normalizeText(word);
        if (key.length < 2 || own.has(key) || seen.has(key) || isStopword(key) || ANAPHORA.has(key)) continue;
        seen.add(key);
        keywords.push(word);
      }
    }
    const chosen = keywords.slice(0, this.options.maxKeywords);
    return chosen.length === 0 ? query : `${query} (${chosen.join(' ')})`;
  }

  /** Copies of the remembered turns, oldest first. */
  get turns(): ConversationTurn[] {
    return structuredClone(this.list);
  }

  /** The most recent `n` turns (copies), oldest first. */
  recent(n: number): ConversationTurn[] {
    assertNumber(n, 'n', { min: 0, integer: true });
    return n === 0 ? [] : structuredClone(this.list.slice(-n));
  }

  /** Number of remembered turns. */
  get size(): number {
    return this.list.length;
  }

  /** Forgets every turn. */
  clear(): void {
    this.list = [];
  }

  /** A JSON-safe snapshot: `JSON.stringify(history)` works directly. */
  toJSON(): ConversationHistoryJSON {
    return { version: 1, turns: structuredClone(this.list) };
  }

  /**
   * Restores a history from {@link toJSON}'s output (an object or its JSON string). Malformed JSON or
   * a wrong shape throws a ZerdaError naming the field (e.g. `history.turns[2].query`); turns beyond
   * `maxTurns` are dropped oldest first.
   */
  static fromJSON(json: string | ConversationHistoryJSON, config?: MultiTurnConfigInput, options?: ConversationHistoryOptions): ConversationHistory {
    let value: unknown = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch (error) {
        throw new ZerdaError(
          'ZERDA_INVALID_ARGUMENT',
          { field: 'history', expected: 'JSON produced by ConversationHistory.toJSON()', received: `malformed JSON (${(error as Error).message})` },
          { cause: error },
        );
      }
    }
    const parsed = parseOrThrow(historySchema, value, 'history');
    const history = new ConversationHistory(config, options);
    history.list = parsed.turns.slice(-history.config.maxTurns).map((turn) => {
      const restored: ConversationTurn = { query: turn.query, contextSummary: turn.contextSummary, timestamp: turn.timestamp };
      if (turn.analysis) restored.analysis = turn.analysis as QueryAnalysis;
      return restored;
    });
    return history;
  }

  private summarize(context: string): string {
    const flat = context.replace(/\s+/gu, ' ').trim();
    return truncateAtWordBoundary(flat, this.options.summaryLength);
  }
}
