// Issue 27: scopes — isolation enforced by the engine.
import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { ContextEngine } from './engine.js';

async function engine() {
  const engine = new ContextEngine({ config: { cache: { enabled: true } } });
  await engine.index([
    { docId: 'a-plan', source: 'acme/plan.md', metadata: { tenant: 'acme', lang: 'en' }, text: 'The acme roadmap ships the tachyon engine in spring.' },
    { docId: 'a-plan-ar', source: 'acme/plan-ar.md', metadata: { tenant: 'acme', lang: 'ar' }, text: 'خارطة طريق أكمي تطلق محرك التاكيون في الربيع.' },
    { docId: 'g-plan', source: 'globex/plan.md', metadata: { tenant: 'globex', lang: 'en' }, text: 'The globex roadmap ships the quasar engine in autumn.' },
  ]);
  return engine;
}
const docsOf = (result: { chunks: Array<{ chunk: { docId: string } }> }) => result.chunks.map((used) => used.chunk.docId).sort();

describe('engine.scope', () => {
  it('ANDs the scope\'s filter with every call\'s: a call narrows, never widens or replaces', async () => {
    const zerda = await engine();
    const acme = zerda.scope({ id: 'acme', filter: { tenant: 'acme' } });
    expect(docsOf(await acme.run('roadmap engine'))).toEqual(['a-plan']);
    expect(docsOf(await acme.run('roadmap engine', { metadataFilters: { tenant: 'globex' } }))).toEqual([]);
    expect(docsOf(await acme.run('roadmap engine', { metadataFilters: { $or: [{ tenant: 'globex' }, { tenant: 'acme' }] } }))).toEqual(['a-plan']);
    expect(docsOf(await acme.run('roadmap engine', { metadataFilters: { lang: 'en' } }))).toEqual(['a-plan']);
    // A scope of a scope narrows further; its filter is both.
    const arabic = acme.scope({ id: 'ar-users', filter: { lang: 'ar' } });
    expect(arabic.filter).toEqual({ $and: [{ tenant: 'acme' }, { lang: 'ar' }] });
    expect(arabic.id).toBe('acme/ar-users');
    expect(docsOf(await arabic.run('محرك التاكيون'))).toEqual(['a-plan-ar']);
    expect(docsOf(await arabic.run('roadmap engine quasar'))).toEqual([]);
  });

  it('caches by identity: the same id hits, another id or an anonymous scope never does', async () => {
    const zerda = await engine();
    const alice = () => zerda.scope({ id: 'acme', filter: { tenant: 'acme' } }).scope({ id: 'alice' });
    expect((await alice().run('roadmap engine')).fromCache).toBe(false);
    expect((await alice().run('roadmap engine')).fromCache).toBe(true);
    const bob = zerda.scope({ id: 'acme', filter: { tenant: 'acme' } }).scope({ id: 'bob' });
    expect((await bob.run('roadmap engine')).fromCache).toBe(false);
    const anonymous = zerda.scope({ filter: { tenant: 'acme' } });
    expect((await anonymous.run('roadmap engine')).fromCache).toBe(false);
    expect((await anonymous.run('roadmap engine')).fromCache).toBe(false);
    // An anonymous level anywhere makes the scope anonymous.
    expect(zerda.scope({ filter: { tenant: 'acme' } }).scope({ id: 'x' }).id).toBeUndefined();
  });

  it('keys history by scope and conversation; no history without a conversation; the engine-level history is never touched', async () => {
    const zerda = await engine();
    const acme = zerda.scope({ id: 'acme', filter: { tenant: 'acme' }, conversation: 'c-1' });
    const globex = zerda.scope({ id: 'globex', filter: { tenant: 'globex' }, conversation: 'c-1' });
    await acme.run('tell me about the tachyon roadmap');
    await globex.run('tell me about the quasar roadmap');
    const followA = await acme.run('and when?');
    const followB = await globex.run('and when?');
    expect(followA.effectiveQuery).toContain('tachyon');
    expect(followA.effectiveQuery).not.toContain('quasar');
    expect(followB.effectiveQuery).toContain('quasar');
    expect(followB.effectiveQuery).not.toContain('tachyon');
    expect(acme.getHistory()?.size).toBe(2);
    expect(zerda.getHistory()?.size).toBe(0);
    // Anonymous scopes with the same conversation id but different filters are two conversations.
    await zerda.scope({ filter: { tenant: 'acme' }, conversation: 'shared-id' }).run('tell me about the tachyon roadmap');
    expect((await zerda.scope({ filter: { tenant: 'globex' }, conversation: 'shared-id' }).run('and when?')).effectiveQuery).toBe('and when?');
    const plain = zerda.scope({ id: 'acme' });
    expect((await plain.run('and when?')).effectiveQuery).toBe('and when?');
    await expect(plain.run('and when?', { useHistory: true })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'options.useHistory' } });
    await expect(plain.run('and when?', { recordTurn: true })).rejects.toMatchObject({ details: { field: 'options.recordTurn' } });
    await expect(acme.run('x', { conversation: 'c-2' })).rejects.toMatchObject({ details: { field: 'options.conversation' } });
    expect(() => acme.scope({ conversation: 'c-2' })).toThrow(/scope\.conversation/);
    // An unscoped id can never spell a scope's registry key (NUL-prefixed): refused, not a way into acme's history.
    await expect(zerda.run('and when?', { conversation: `\u0000${JSON.stringify([['acme'], 'c-1'])}` })).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT' });
    expect(() => zerda.conversation('\u0000x')).toThrow(/without NUL/);
  });

  it('a repeated question (a later step of a tool loop) is enriched as the first time', async () => {
    const zerda = await engine();
    const scope = zerda.scope({ id: 'acme', filter: { tenant: 'acme' }, conversation: 'loop' });
    await scope.run('tell me about the tachyon roadmap');
    const first = await scope.run('and when?');
    const again = await scope.run('and when?', { recordTurn: false });
    expect(again.effectiveQuery).toBe(first.effectiveQuery);
  });

  it('validates its options, naming the field', async () => {
    const zerda = await engine();
    expect(() => zerda.scope({ id: '' })).toThrow(/scope\.id/);
    expect(() => zerda.scope({ tenant: 'acme' } as never)).toThrow(/scope\.tenant/);
    expect(() => zerda.scope({ filter: { year: { $near: 1 } } } as never)).toThrow(/scope\.filter/);
    expect(() => zerda.scope(null as never)).toThrow(/scope/);
  });

  it('runMulti in a scope keeps the scope\'s filter', async () => {
    const zerda = await engine();
    const { results } = await zerda.scope({ id: 'globex', filter: { tenant: 'globex' } }).runMultiDetailed(['roadmap engine', 'tachyon']);
    for (const result of results) for (const docId of docsOf(result)) expect(docId).toBe('g-plan');
  });

  it('property: any call filter in a tenant scope returns only that tenant\'s chunks', async () => {
    const zerda = await engine();
    const value = fc.constantFrom('acme', 'globex', 'en', 'ar');
    const filter: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ f: Record<string, unknown> }>((tie) => ({
      f: fc.oneof(
        { depthSize: 'small' },
        fc.record({ tenant: value }),
        fc.record({ lang: value }),
        fc.record({ $or: fc.array(tie('f'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ $not: tie('f') }),
      ),
    })).f;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('acme', 'globex'), filter, fc.constantFrom('roadmap engine', 'محرك', 'quasar tachyon'), async (tenant, callFilter, query) => {
        const result = await zerda.scope({ filter: { tenant } }).run(query, { metadataFilters: callFilter as never });
        for (const used of result.chunks) expect(used.chunk.metadata.tenant).toBe(tenant);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the bridges\' helpers refuse bad input naming the field', () => {
  it('runForRequest, scopedRunner and emptyContextMessage', async () => {
    const { runForRequest, scopedRunner, emptyContextMessage } = await import('./runner.js');
    await expect(runForRequest(null as never, 'q', undefined)).rejects.toMatchObject({ code: 'ZERDA_INVALID_ARGUMENT', details: { field: 'engine' } });
    expect(() => scopedRunner({} as never, undefined)).toThrow(/engine must be/);
    expect(() => emptyContextMessage(5 as never)).toThrow(/query must be a string/);
    // A resolved scope for a runner that cannot make scopes is refused, never silently dropped.
    expect(() => scopedRunner({ run: async () => ({}) as never }, { filter: { tenant: 'acme' } })).toThrow(/scope must be/);
    expect(emptyContextMessage('ما هو؟', { matched: 2, budget: { limit: 10, unit: 'chars' } })).toMatch(/الحدّ/);
  });
});
