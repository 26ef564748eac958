// Two copies of @opentelemetry/api in one process (an SDK that brought its own, older copy): the API
// ignores a provider registered by a copy of another minor version, so the engine's spans would go
// nowhere in silence. The engine says so once. Its own module state (the once-per-process flag)
// is why this lives in a file of its own.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as api from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ContextEngine } from './engine.js';
import { telemetryApiMismatch } from './tracing.js';

const REGISTRY = Symbol.for('opentelemetry.js.api.1');
const globals = globalThis as unknown as Record<symbol, unknown>;
const documents = [
  { docId: 'hours-ar', source: 'hours-ar.md', text: 'تفتح المكتبة من الساعة التاسعة صباحًا حتى الخامسة مساءً.' },
  { docId: 'hours-en', source: 'hours-en.md', text: 'The library opens at 9 am and closes at 5 pm.' },
];

function recorder() {
  const exporter = new InMemorySpanExporter();
  return { exporter, provider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

/** What an older copy of the API (1.8.0, another minor version than the 1.9.1 installed here) leaves in the shared registry when an SDK registers through it. */
function registerThroughOlderCopy(provider: unknown): void {
  globals[REGISTRY] = { version: '1.8.0', trace: provider };
}

afterEach(() => {
  api.trace.disable();
  delete globals[REGISTRY];
  vi.restoreAllMocks();
});

describe('a tracer provider registered through another copy of @opentelemetry/api', () => {
  it('is no mismatch when the provider was registered through the copy the engine uses', async () => {
    const { exporter, provider } = recorder();
    api.trace.setGlobalTracerProvider(provider);
    expect(telemetryApiMismatch(api)).toBeUndefined();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const engine = new ContextEngine();
    await engine.index(documents);
    await engine.run('متى تفتح المكتبة؟');
    expect(exporter.getFinishedSpans().map((span) => span.name)).toContain('retrieval');
    expect(warn).not.toHaveBeenCalled();
  });

  it('is no mismatch when nothing is registered', () => {
    expect(telemetryApiMismatch(api)).toBeUndefined();
    expect(telemetryApiMismatch(api, {})).toBeUndefined();
  });

  it('is described, naming the version that registered and the ways out, when this copy cannot see it', () => {
    registerThroughOlderCopy(recorder().provider);
    // The real API (1.9.1 here) refuses the older copy's registration: it hands out its own empty proxy.
    expect(api.trace.getTracerProvider()).not.toBe(globals[REGISTRY] && (globals[REGISTRY] as { trace: unknown }).trace);
    const message = telemetryApiMismatch(api);
    expect(message).toContain('@opentelemetry/api 1.8.0');
    expect(message).toContain('no spans are recorded');
    expect(message).toContain('telemetry: { api }');
  });

  it('warns once per process while the spans go nowhere, and not when the engine is given its provider', async () => {
    const { exporter, provider } = recorder();
    registerThroughOlderCopy(provider);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});

    const explicit = new ContextEngine({ telemetry: { tracerProvider: provider } });
    await explicit.index(documents);
    await explicit.run('When does the library open?');
    expect(warn).not.toHaveBeenCalled();
    expect(exporter.getFinishedSpans().map((span) => span.name)).toContain('retrieval');
    exporter.reset();

    for (const query of ['متى تفتح المكتبة؟', 'When does the library close?']) {
      const engine = new ContextEngine();
      await engine.index(documents);
      await engine.run(query);
    }
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/^zerda: a tracer provider is registered through @opentelemetry\/api 1\.8\.0/);
  });
});
