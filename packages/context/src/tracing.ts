import { redactError } from '@zerda/types';

/**
 * OpenTelemetry spans for the engine, through the optional peer `@opentelemetry/api`.
 *
 * Nothing here imports the API at module load: the first traced call imports it by a computed name
 * (so that bundlers neither resolve nor require it), and when it is not installed every span is
 * skipped for good: no span objects, no attributes, no per-call work beyond one resolved promise.
 * When it is installed but no SDK is registered (its spans do not record), the run skips every
 * child span and attribute as well.
 *
 * Attribute names follow the OpenTelemetry GenAI conventions for retrieval where they exist
 * (`gen_ai.operation.name = "retrieval"`, `gen_ai.retrieval.top_k`, `gen_ai.data_source.id`, and the
 * opt-in `gen_ai.retrieval.query.text` and `gen_ai.retrieval.documents`); everything zerda-specific
 * is under `zerda.*`.
 */

export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];
export type Attributes = Record<string, AttributeValue | undefined>;

/** The span methods zerda calls (any OpenTelemetry `Span` has them). */
export interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: unknown): void;
  isRecording(): boolean;
  end(): void;
}

/** The tracer methods zerda calls (any OpenTelemetry `Tracer` has them). */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }, context?: unknown): SpanLike;
}

/** Anything with `getTracer` (an OpenTelemetry `TracerProvider`, e.g. the SDK's `BasicTracerProvider`). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): TracerLike;
}

/** The parts of the `@opentelemetry/api` module zerda uses; pass the module itself. */
export interface OpenTelemetryApi {
  trace: {
    getTracer(name: string, version?: string): TracerLike;
    setSpan(context: unknown, span: SpanLike): unknown;
    /** The provider this copy of the API hands out (used to notice a provider registered through another copy). */
    getTracerProvider?(): unknown;
  };
  context: { active(): unknown };
}

/** The `telemetry` option of the engine. Every field is optional; spans are on when the API is installed. */
export interface TelemetryOptions {
  /** `false` turns spans off even when `@opentelemetry/api` is installed. Default true. */
  enabled?: boolean;
  /**
   * The `@opentelemetry/api` module, for runtimes where it cannot be imported by name (a bundled
   * browser or worker app: `telemetry: { api: await import('@opentelemetry/api') }`). Default: imported on first use.
   */
  api?: OpenTelemetryApi;
  /** Where spans go. Default: the globally registered provider (`trace.getTracer('@zerda/context')`). */
  tracerProvider?: TracerProviderLike;
  /** Record the literal and effective query as `gen_ai.retrieval.query.text` / `zerda.query.effective_text`. Default false: queries may hold personal data. */
  recordQueryText?: boolean;
  /** Record the ids and scores of the chunks in the context as `gen_ai.retrieval.documents` (JSON). Default false. */
  recordDocuments?: boolean;
  /** `gen_ai.data_source.id` on every run span (e.g. the name of the knowledge base). */
  dataSourceId?: string;
  /**
   * Record a failed run's full error message on its spans. Default false: the spans get the error's
   * code and field path, never the values it may quote (a filter's value, a query's words).
   */
  recordErrorDetails?: boolean;
}

const TRACER_NAME = '@zerda/context';
const SPAN_KIND_INTERNAL = 0;
const STATUS_ERROR = 2;
const OPEN_TELEMETRY = '@opentelemetry/api';

function isApi(value: unknown): value is OpenTelemetryApi {
  const api = value as Partial<OpenTelemetryApi> | null | undefined;
  return typeof api?.trace?.getTracer === 'function' && typeof api.trace.setSpan === 'function' && typeof api.context?.active === 'function';
}

let installed: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * The installed `@opentelemetry/api`, imported once per process on first use (undefined when it is
 * not installed or cannot be imported in this runtime). `importer` exists for tests.
 */
export function loadOpenTelemetry(importer: (name: string) => Promise<unknown> = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name)): Promise<OpenTelemetryApi | undefined> {
  installed ??= importer(OPEN_TELEMETRY).then(
    (module) => (isApi(module) ? module : isApi((module as { default?: unknown } | null)?.default) ? ((module as { default: OpenTelemetryApi }).default) : undefined),
    () => undefined,
  );
  return installed;
}

/** True when `value` has the parts of `@opentelemetry/api` zerda uses (for validating the `telemetry.api` option). */
export function isTelemetryApi(value: unknown): value is OpenTelemetryApi {
  return isApi(value);
}

/** Where every 1.x copy of `@opentelemetry/api` keeps its registrations (the API's own global key). */
const API_REGISTRY = Symbol.for('opentelemetry.js.api.1');
let mismatchWarned = false;

/**
 * Describes the silent failure of two `@opentelemetry/api` copies: a tracer provider was registered
 * through one copy (the SDK's) and `api`, the copy the engine loaded, cannot use it — the API
 * ignores a registration made by a copy of another minor version, so every span would be dropped
 * without a word. Returns undefined when there is nothing wrong (no provider registered, or this
 * copy hands out the registered one).
 */
export function telemetryApiMismatch(api: OpenTelemetryApi, globalObject: object = globalThis): string | undefined {
  const registry = (globalObject as Record<symbol, { version?: unknown; trace?: unknown } | undefined>)[API_REGISTRY];
  if (!registry?.trace || typeof api.trace.getTracerProvider !== 'function') return undefined;
  if (api.trace.getTracerProvider() === registry.trace) return undefined;
  const version = typeof registry.version === 'string' ? ` ${registry.version}` : '';
  return (
    `zerda: a tracer provider is registered through @opentelemetry/api${version}, but @zerda/context loaded another copy of @opentelemetry/api that cannot use it, so no spans are recorded. ` +
    'Install one @opentelemetry/api that your SDK accepts (`npm ls @opentelemetry/api`; @opentelemetry/sdk-trace-base 2.12.1 wants < 1.10.0, e.g. 1.9.1), ' +
    "or give the engine the SDK's copy: `telemetry: { api }` or `telemetry: { tracerProvider }`."
  );
}

function errorType(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return '_OTHER';
}

/**
 * One traced operation: a parent span plus at most one open child ("stage") at a time. Stages are
 * ended by the next stage, by `endStage`, or by `end`/`fail` (so an exception inside a stage still
 * ends its span, with the error recorded on it).
 */
export class Trace {
  #stage: SpanLike | undefined;
  readonly #parentContext: unknown;

  constructor(
    readonly options: Readonly<TelemetryOptions>,
    private readonly tracer: TracerLike,
    private readonly span: SpanLike,
    api: OpenTelemetryApi,
  ) {
    this.#parentContext = api.trace.setSpan(api.context.active(), span);
  }

  /** Starts the child span `zerda.<name>` (ending the previous one). */
  stage(name: string, attributes?: Attributes): void {
    this.#stage?.end();
    this.#stage = this.tracer.startSpan(`zerda.${name}`, { kind: SPAN_KIND_INTERNAL, attributes: clean(attributes) }, this.#parentContext);
  }

  /** Ends the open child span with these attributes. */
  endStage(attributes?: Attributes): void {
    if (!this.#stage) return;
    if (attributes) this.#stage.setAttributes(clean(attributes));
    this.#stage.end();
    this.#stage = undefined;
  }

  /** Sets attributes on the parent span. */
  set(attributes: Attributes): void {
    this.span.setAttributes(clean(attributes));
  }

  /** Ends the open child and the parent span. */
  end(attributes?: Attributes): void {
    this.endStage();
    if (attributes) this.set(attributes);
    this.span.end();
  }

  /** Records `error` on the open child (if any) and the parent, marks both failed and ends them. */
  fail(error: unknown): void {
    // Error texts can hold a filter's values or a query's words: only the code and the field path
    // reach a span unless the application opts in (`recordErrorDetails`).
    const recorded = this.options.recordErrorDetails === true ? error : redactError(error);
    const message = recorded instanceof Error ? recorded.message : String(recorded);
    for (const span of this.#stage ? [this.#stage, this.span] : [this.span]) {
      span.recordException(recorded instanceof Error ? recorded : message);
      span.setAttributes({ 'error.type': errorType(error) });
      span.setStatus({ code: STATUS_ERROR, message });
      span.end();
    }
    this.#stage = undefined;
  }
}

function clean(attributes: Attributes | undefined): Attributes {
  const out: Attributes = {};
  if (!attributes) return out;
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * The engine's tracing: resolves the API and tracer once, then starts a {@link Trace} per traced
 * call — or returns undefined (nothing to do) when tracing is off, the API is absent, or the span
 * would not record.
 */
export class EngineTelemetry {
  readonly options: Readonly<TelemetryOptions>;
  #resolved: Promise<{ api: OpenTelemetryApi; tracer: TracerLike } | undefined> | undefined;

  constructor(options: TelemetryOptions = {}) {
    this.options = Object.freeze({ ...options });
  }

  /** Starts the span `name` (a parent for stages), or returns undefined when nothing would be recorded. */
  async start(name: string, attributes: Attributes): Promise<Trace | undefined> {
    if (this.options.enabled === false) return undefined;
    this.#resolved ??= this.#resolve();
    const resolved = await this.#resolved;
    if (!resolved) return undefined;
    const span = resolved.tracer.startSpan(name, { kind: SPAN_KIND_INTERNAL, attributes: clean(attributes) }, resolved.api.context.active());
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    return new Trace(this.options, resolved.tracer, span, resolved.api);
  }

  async #resolve(): Promise<{ api: OpenTelemetryApi; tracer: TracerLike } | undefined> {
    const api = this.options.api ?? (await loadOpenTelemetry());
    if (!api) return undefined;
    if (!this.options.tracerProvider && !mismatchWarned) {
      const mismatch = telemetryApiMismatch(api);
      if (mismatch) {
        mismatchWarned = true;
        console.warn(mismatch);
      }
    }
    const tracer = this.options.tracerProvider ? this.options.tracerProvider.getTracer(TRACER_NAME) : api.trace.getTracer(TRACER_NAME);
    return { api, tracer };
  }
}

/** Runs `task` inside the span `name` (a no-op wrapper when tracing is off), failing the span on error. */
export async function traced<T>(telemetry: EngineTelemetry, name: string, attributes: Attributes, task: (trace: Trace | undefined) => Promise<T>, finish?: (value: T) => Attributes): Promise<T> {
  const trace = await telemetry.start(name, attributes);
  if (!trace) return task(undefined);
  let value: T;
  try {
    value = await task(trace);
  } catch (error) {
    trace.fail(error);
    throw error;
  }
  trace.end(finish?.(value));
  return value;
}
