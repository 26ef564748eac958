/**
 * The isolation suite every zerda bridge and server runs: `testScopeIsolation(adapter)` registers
 * vitest cases that serve one engine (cache on, conversations on, spans and logs recorded) to two
 * tenants with two users each, through the adapter — the framework's own client, its own request
 * context — and assert that nothing of one tenant (its documents' text, its sources, its questions'
 * words, its effective queries, its cache entries, its error texts) reaches the other, that nothing
 * of one user's conversation reaches another user's, and that no span or log line holds a query's
 * words, a document's text or a filter's value.
 */
import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { trace, context as otelContext } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ContextEngine, type ContextEngineOptions } from '@zerda/context';

/** The two tenants of the suite. */
export const TENANTS = ['acme', 'globex'] as const;
/** The two users of each tenant. */
export const USERS = ['alice', 'bob'] as const;
export type Tenant = (typeof TENANTS)[number];
export type User = (typeof USERS)[number];

/** One request as the suite makes it; the adapter turns it into its framework's request. */
export interface IsolationRequest {
  /** The tenant: the bridge must confine the request to documents whose `metadata.tenant` is this (through its request context). */
  tenant: Tenant;
  /** The user within the tenant: the bridge gives the request the scope id `${tenant}/${user}` (or makes it anonymous). */
  user: User;
  query: string;
  /** A conversation id (only with `capabilities.conversations`): its history belongs to this tenant and user. */
  conversation?: string;
  /** A filter the caller (a model, a client) adds (only with `capabilities.callerFilter`). */
  filter?: Record<string, unknown>;
}

/** What the requester could observe. */
export interface IsolationObservation {
  /** Everything the requester (the model, the client, the application's callback) saw, as text: responses, prompts, tool outputs, metadata. */
  seen: string;
  /** The cache flag, when the bridge shows it. */
  fromCache?: boolean;
  /** The effective query, when the bridge shows it. */
  effectiveQuery?: string;
  /** The error text the requester (a model, a client) saw, when the request failed: it must not quote the request's values. */
  error?: string;
}

/** A running bridge or server over the suite's engine. */
export interface IsolationClient {
  ask(request: IsolationRequest): Promise<IsolationObservation>;
  close?(): Promise<void>;
}

/** What the suite needs of a bridge or server. */
export interface IsolationAdapter {
  /** Shown in the test names. */
  name: string;
  capabilities: {
    /** The bridge confines each request to its tenant's documents (false for a server with one index and no tenants: the "tenants" are then just two clients). */
    tenants: boolean;
    /** Requests can carry a conversation id (history per conversation). */
    conversations: boolean;
    /** A caller (model or client) can add a metadata filter. */
    callerFilter: boolean;
  };
  /** Starts the bridge or server over `engine`. */
  start(engine: ContextEngine): Promise<IsolationClient>;
  /** Extra engine options (e.g. a token counter); the suite's cache, conversations, logger and telemetry always apply. */
  engineOptions?: Omit<ContextEngineOptions, 'logger' | 'telemetry'>;
}

const TOPIC = { acme: { alice: 'kryptonaa', bob: 'kryptonab' }, globex: { alice: 'kryptonba', bob: 'kryptonbb' } } as const;
const TOPIC_AR = { acme: { alice: 'زبرجدأ', bob: 'زبرجدب' }, globex: { alice: 'زمردأ', bob: 'زمردب' } } as const;
const SECRET = { acme: 'tachyonacme', globex: 'quasarglobex' } as const;
const SECRET_AR = { acme: 'سرأكمي', globex: 'سرجلوبكس' } as const;
/** A value a caller puts in a bad filter: it must never come back in an error text, a span or a log. */
export const FILTER_SECRET = 'alice@example.com';

/** The identical questions every tenant and user asks. */
export const IDENTICAL = { en: 'What is the launch code of the project?', ar: 'ما هو رمز الإطلاق للمشروع؟' } as const;
/** A follow-up that needs the conversation to mean anything. */
export const FOLLOW_UP = 'and what about it?';

/** A user's own question (words only this user's documents hold). */
export function topicQuestion(tenant: Tenant, user: User): string {
  return `Tell me about ${TOPIC[tenant][user]} and ${TOPIC_AR[tenant][user]}`;
}

/** The suite's corpus: each tenant's launch-code document and a topic document per user. */
export function isolationCorpus() {
  return TENANTS.flatMap((tenant) => [
    {
      docId: `${tenant}-launch`,
      source: `${tenant}/vault.md`,
      text: `The launch code of the project is ${SECRET[tenant]}. The launch code is kept in the vault of the project. رمز الإطلاق للمشروع هو ${SECRET_AR[tenant]} ويُحفظ في خزنة المشروع.`,
      metadata: { tenant },
    },
    ...USERS.map((user) => ({
      docId: `${tenant}-${user}-topic`,
      source: `${tenant}/${user}/notes.md`,
      text: `${TOPIC[tenant][user]} is a topic described here in detail for the project, and ${TOPIC_AR[tenant][user]} is its Arabic name in these notes.`,
      metadata: { tenant },
    })),
  ]);
}

/** Words that belong to `tenant` only (documents, sources, questions). */
function wordsOf(tenant: Tenant): string[] {
  return [SECRET[tenant], SECRET_AR[tenant], `${tenant}/`, ...USERS.flatMap((user) => [TOPIC[tenant][user], TOPIC_AR[tenant][user]])];
}

function other(tenant: Tenant): Tenant {
  return tenant === 'acme' ? 'globex' : 'acme';
}

interface Recorded {
  request: IsolationRequest;
  observation: IsolationObservation;
  /** Order of the request's start. */
  started: number;
}

/** Every isolation failure of `recorded`, as readable strings (none expected). */
export function isolationLeaks(recorded: readonly Recorded[], adapter: IsolationAdapter): string[] {
  const leaks: string[] = [];
  for (const { request, observation, started } of recorded) {
    const who = `${request.tenant}/${request.user} #${started} (${JSON.stringify(request.query)})`;
    // With tenants: nothing of the other tenant anywhere (documents, sources, questions). Without (one
    // index, clients only): the other clients' question words never in this client's effective query or errors.
    const text = adapter.capabilities.tenants
      ? `${observation.seen}\n${observation.error ?? ''}\n${observation.effectiveQuery ?? ''}`
      : `${observation.error ?? ''}\n${observation.effectiveQuery ?? ''}`;
    const foreign = adapter.capabilities.tenants
      ? wordsOf(other(request.tenant))
      : USERS.flatMap((user) => [TOPIC[other(request.tenant)][user], TOPIC_AR[other(request.tenant)][user]]);
    for (const word of foreign) if (text.includes(word)) leaks.push(`${who} saw ${word} of the other tenant`);
    // Another user's conversation never enriches this user's query.
    if (observation.effectiveQuery !== undefined) {
      for (const tenant of TENANTS) {
        for (const user of USERS) {
          if (tenant === request.tenant && user === request.user) continue;
          for (const word of [TOPIC[tenant][user], TOPIC_AR[tenant][user]]) {
            if (observation.effectiveQuery.includes(word) && !request.query.includes(word)) leaks.push(`${who}'s effective query holds ${word} of ${tenant}/${user}`);
          }
        }
      }
    }
    // (The request itself may be echoed — a model sees its own tool call — but no error text quotes it.)
    if ((observation.error ?? '').includes(FILTER_SECRET)) leaks.push(`${who} saw the filter value ${FILTER_SECRET} in an error`);
    // A cache hit only for a question this same tenant and user asked before.
    if (observation.fromCache === true) {
      const before = recorded.some(
        (earlier) =>
          earlier.started < started &&
          earlier.request.tenant === request.tenant &&
          earlier.request.user === request.user &&
          earlier.request.query === request.query &&
          earlier.request.conversation === request.conversation,
      );
      if (!before) leaks.push(`${who} was served from the cache although this user never asked it before`);
    }
  }
  return leaks;
}

/** The words no span attribute and no log line may hold (queries, documents, filter values). */
function privateWords(): string[] {
  return [...TENANTS.flatMap(wordsOf).filter((word) => !word.endsWith('/')), FILTER_SECRET, 'launch code', 'رمز الإطلاق'];
}

/**
 * Registers the isolation cases for `adapter` (call it inside a test file; it adds a `describe`).
 * Each case starts the adapter over a fresh engine and closes it after.
 */
export function testScopeIsolation(adapter: IsolationAdapter): void {
  const { capabilities } = adapter;

  async function withClient<T>(task: (client: IsolationClient, engine: ContextEngine) => Promise<T>): Promise<{ value: T; spans: string[]; logs: string[] }> {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const logs: string[] = [];
    const sink = (fields: unknown, message?: unknown) => logs.push(`${JSON.stringify(fields)} ${String(message ?? '')}`);
    const engine = new ContextEngine({
      ...adapter.engineOptions,
      config: { ...adapter.engineOptions?.config, cache: { enabled: true }, multiTurn: { enabled: true } },
      logger: { debug: sink, info: sink, warn: sink, error: sink },
      telemetry: { api: { trace, context: otelContext } as never, tracerProvider: provider },
    });
    await engine.index(isolationCorpus());
    const client = await adapter.start(engine);
    try {
      const value = await task(client, engine);
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans().map((span) => JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status }));
      return { value, spans, logs };
    } finally {
      await client.close?.();
      await provider.shutdown();
    }
  }

  /** Runs the requests in concurrent batches and records what each requester saw. */
  async function play(client: IsolationClient, batches: IsolationRequest[][]): Promise<Recorded[]> {
    const recorded: Recorded[] = [];
    let started = 0;
    for (const batch of batches) {
      const observations = await Promise.all(
        batch.map(async (request) => {
          const order = started++;
          let observation: IsolationObservation;
          try {
            observation = await client.ask(request);
          } catch (error) {
            observation = { seen: '', error: error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : String(error) };
          }
          return { request, observation, started: order };
        }),
      );
      recorded.push(...observations);
    }
    return recorded;
  }

  const conversationOf = (tenant: Tenant, user: User) => (capabilities.conversations ? { conversation: `conversation-${tenant}-${user}-0123456789` } : {});

  describe(`scope isolation: ${adapter.name}`, () => {
    it('two tenants ask the identical question at once, twice (cache on): each gets its own answer, never the other\'s, and no cache hit crosses users', async () => {
      const { value: recorded, spans, logs } = await withClient((client) =>
        play(client, [
          TENANTS.flatMap((tenant) => USERS.flatMap((user) => [{ tenant, user, query: IDENTICAL.en }, { tenant, user, query: IDENTICAL.ar }])),
          TENANTS.flatMap((tenant) => USERS.flatMap((user) => [{ tenant, user, query: IDENTICAL.en }, { tenant, user, query: IDENTICAL.ar }])),
        ]),
      );
      expect(isolationLeaks(recorded, adapter)).toEqual([]);
      for (const { request, observation } of recorded) {
        expect(observation.error, `${request.tenant}/${request.user}: ${observation.error}`).toBeUndefined();
        // The test can fail: with tenants, each requester sees its own tenant's secret.
        if (capabilities.tenants) expect(observation.seen).toContain(request.query === IDENTICAL.en ? SECRET[request.tenant] : SECRET_AR[request.tenant]);
      }
      expect(leakedInto(spans, 'span')).toEqual([]);
      expect(leakedInto(logs, 'log line')).toEqual([]);
    });

    it.runIf(capabilities.conversations)('follow-ups are enriched with the asker\'s own conversation only (English and Arabic, interleaved)', async () => {
      const { value: recorded } = await withClient((client) =>
        play(client, [
          TENANTS.flatMap((tenant) => USERS.map((user) => ({ tenant, user, query: topicQuestion(tenant, user), ...conversationOf(tenant, user) }))),
          TENANTS.flatMap((tenant) => USERS.map((user) => ({ tenant, user, query: FOLLOW_UP, ...conversationOf(tenant, user) }))),
          TENANTS.flatMap((tenant) => USERS.map((user) => ({ tenant, user, query: 'وماذا عنه؟', ...conversationOf(tenant, user) }))),
        ]),
      );
      expect(isolationLeaks(recorded, adapter)).toEqual([]);
      for (const { request, observation } of recorded.filter((entry) => entry.request.query !== topicQuestion(entry.request.tenant, entry.request.user))) {
        // The follow-up found the asker's own topic: history was used, and it was the asker's.
        expect(observation.seen, `${request.tenant}/${request.user} ${request.query}`).toContain(TOPIC[request.tenant][request.user]);
      }
    });

    it.runIf(capabilities.callerFilter)('a caller\'s filter narrows and never widens: asking for the other tenant finds nothing of it; a bad filter\'s value stays out of the error', async () => {
      const { value: recorded, spans, logs } = await withClient((client) =>
        play(client, [
          TENANTS.map((tenant) => ({ tenant, user: 'alice' as const, query: IDENTICAL.en, filter: { tenant: other(tenant) } })),
          TENANTS.map((tenant) => ({ tenant, user: 'bob' as const, query: IDENTICAL.en, filter: { $or: [{ tenant: other(tenant) }, { tenant }] } })),
          TENANTS.map((tenant) => ({ tenant, user: 'alice' as const, query: IDENTICAL.en, filter: { email: { $regex: FILTER_SECRET } } })),
          TENANTS.map((tenant) => ({ tenant, user: 'bob' as const, query: IDENTICAL.en, filter: JSON.parse(`{"__proto__": {"tenant": "${other(tenant)}"}}`) as Record<string, unknown> })),
        ]),
      );
      expect(isolationLeaks(recorded, adapter)).toEqual([]);
      const bad = recorded.filter((entry) => JSON.stringify(entry.request.filter ?? {}).includes(FILTER_SECRET));
      for (const entry of bad) expect(entry.observation.error ?? entry.observation.seen, 'a bad filter is refused').toMatch(/filter|ZERDA_INVALID/i);
      // `{"__proto__": …}` is refused, never dropped into an unfiltered search.
      for (const entry of recorded.filter((item) => Object.prototype.hasOwnProperty.call(item.request.filter ?? {}, '__proto__'))) {
        expect(`${entry.observation.error ?? ''}${entry.observation.seen}`).not.toContain(SECRET[entry.request.tenant]);
      }
      expect(leakedInto(spans, 'span')).toEqual([]);
      expect(leakedInto(logs, 'log line')).toEqual([]);
    });

    it('random interleavings of both tenants\' requests (property)', async () => {
      const requestArbitrary = fc.record({
        tenant: fc.constantFrom(...TENANTS),
        user: fc.constantFrom(...USERS),
        kind: fc.constantFrom('identical-en', 'identical-ar', 'topic', 'follow-up'),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(requestArbitrary, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }), async (plan) => {
          const batches = plan.map((batch) =>
            batch.map(({ tenant, user, kind }): IsolationRequest => ({
              tenant,
              user,
              query: kind === 'identical-en' ? IDENTICAL.en : kind === 'identical-ar' ? IDENTICAL.ar : kind === 'topic' ? topicQuestion(tenant, user) : FOLLOW_UP,
              ...conversationOf(tenant, user),
            })),
          );
          const { value: recorded, spans } = await withClient((client) => play(client, batches));
          expect(isolationLeaks(recorded, adapter)).toEqual([]);
          expect(leakedInto(spans, 'span')).toEqual([]);
        }),
        { numRuns: 6 },
      );
    });
  });
}

function leakedInto(records: readonly string[], what: string): string[] {
  const words = privateWords();
  return records.flatMap((record) => words.filter((word) => record.includes(word)).map((word) => `a ${what} holds "${word}": ${record.slice(0, 300)}`));
}
