import { ConversationHistory, type ConversationHistoryJSON } from '@zerda/context-core';
import { invalidArgument, type ContextResult, type MultiTurnConfig } from '@zerda/types';
import { MAX_CONVERSATION_ID_LENGTH, type RunMultiOptions, type RunOptions } from './options.js';

/** Throws a ZerdaError naming `field` unless `id` is a conversation id (a non-empty string of at most 256 characters). */
export function checkConversationId(id: unknown, field: string): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_CONVERSATION_ID_LENGTH || id.includes('\u0000')) {
    throw invalidArgument(field, `a conversation id (a non-empty string of at most ${MAX_CONVERSATION_ID_LENGTH} characters, without NUL)`, id);
  }
  return id;
}

interface Entry {
  history: ConversationHistory;
  lastUsed: number;
}

/** What the registry tells the engine about a conversation it forgot. */
export interface ForgottenConversation {
  id: string;
  reason: 'evicted' | 'expired';
}

/**
 * The live conversations of one engine: a history per conversation id, at most
 * `multiTurn.maxConversations` of them (the least recently used is forgotten first), each forgotten
 * once it has been idle for `multiTurn.conversationTtlMs`. A forgotten conversation starts afresh
 * when its id is used again. Every operation is synchronous, so concurrent runs stay consistent.
 */
export class ConversationRegistry {
  // Map order is recency order: the first entry is the least recently used.
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly config: MultiTurnConfig,
    private readonly now: () => number = Date.now,
    private readonly onForget: (forgotten: ForgottenConversation) => void = () => {},
  ) {}

  /** The history of conversation `id`, created when it does not exist (or expired); marks it used. */
  history(id: string): ConversationHistory {
    const now = this.now();
    this.expire(now);
    let entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
    } else {
      entry = { history: new ConversationHistory(this.config), lastUsed: now };
    }
    entry.lastUsed = now;
    this.entries.set(id, entry);
    this.evict();
    return entry.history;
  }

  /** Replaces the history of conversation `id`. */
  set(id: string, history: ConversationHistory): void {
    const now = this.now();
    this.expire(now);
    this.entries.delete(id);
    this.entries.set(id, { history, lastUsed: now });
    this.evict();
  }

  /** Whether conversation `id` is live (without marking it used). */
  has(id: string): boolean {
    this.expire(this.now());
    return this.entries.has(id);
  }

  /** Forgets conversation `id`; true when it was live. */
  delete(id: string): boolean {
    return this.entries.delete(id);
  }

  /** Number of live conversations. */
  get size(): number {
    this.expire(this.now());
    return this.entries.size;
  }

  private expire(now: number): void {
    for (const [id, entry] of this.entries) {
      if (now - entry.lastUsed < this.config.conversationTtlMs) break;
      this.entries.delete(id);
      this.onForget({ id, reason: 'expired' });
    }
  }

  private evict(): void {
    while (this.entries.size > this.config.maxConversations) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.onForget({ id: oldest, reason: 'evicted' });
    }
  }
}

/** What a {@link Conversation} needs from its engine. */
export interface ConversationHost {
  run(query: unknown, options?: RunOptions): Promise<ContextResult>;
  runMulti(queries: unknown, options?: RunMultiOptions): Promise<string>;
  /** The live history of `id` (created when missing); undefined when multi-turn is disabled. */
  conversationHistory(id: string): ConversationHistory | undefined;
  /** Replaces the history of `id` from a ConversationHistory or its JSON. */
  restoreConversation(id: string, history: ConversationHistory | ConversationHistoryJSON | string): void;
  /** Forgets `id`; true when it was live. */
  endConversation(id: string): boolean;
}

/**
 * One conversation of an engine shared by many users: `run` and `runMulti` use (and record into)
 * this conversation's history only, and its cache entries are its own, so nothing of it reaches
 * another conversation. Get one with `engine.conversation(id)`; handles are cheap and any number may
 * refer to the same id.
 */
export class Conversation {
  constructor(
    private readonly host: ConversationHost,
    /** The conversation id. */
    readonly id: string,
  ) {}

  /** `engine.run(query, { ...options, conversation: id })`. */
  run(query: unknown, options: Omit<RunOptions, 'conversation'> = {}): Promise<ContextResult> {
    return this.host.run(query, { ...this.optionsObject(options), conversation: this.id });
  }

  /** `engine.runMulti(queries, { ...options, conversation: id })`. */
  runMulti(queries: unknown, options: Omit<RunMultiOptions, 'conversation'> = {}): Promise<string> {
    return this.host.runMulti(queries, { ...this.optionsObject(options), conversation: this.id });
  }

  /** This conversation's live history (undefined when `multiTurn.enabled` is false). */
  getHistory(): ConversationHistory | undefined {
    return this.host.conversationHistory(this.id);
  }

  /** A JSON-safe snapshot of this conversation's history (`{ version: 1, turns: [] }` when it has none). */
  toJSON(): ConversationHistoryJSON {
    return this.getHistory()?.toJSON() ?? { version: 1, turns: [] };
  }

  /** Restores this conversation from what {@link toJSON} returned (an object or its JSON string), replacing its history. */
  fromJSON(json: ConversationHistoryJSON | string): this {
    this.host.restoreConversation(this.id, json);
    return this;
  }

  /** Forgets every turn of this conversation (it stays live). */
  clear(): void {
    this.getHistory()?.clear();
  }

  /** Forgets this conversation entirely; true when it was live. */
  end(): boolean {
    return this.host.endConversation(this.id);
  }

  private optionsObject<T>(options: T): T {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidArgument('options', 'an options object', options);
    if (Object.prototype.hasOwnProperty.call(options, 'conversation')) {
      throw invalidArgument('options.conversation', `absent: this handle always runs in conversation ${JSON.stringify(this.id)}`, (options as Record<string, unknown>).conversation);
    }
    return options;
  }
}
