// CommonJS consumer: require() of the published ES modules (Node >= 20.19 loads them through the
// exports maps' `default` condition), and the same module instances as import() (no dual package).
const assert = require('node:assert/strict');
const { ContextEngine, ZerdaError, explainResult } = require('@zerda/context');

async function main() {
  const engine = new ContextEngine({ config: { composer: { maxContextLength: 600, template: 'citations' } } });
  await engine.index([
    { docId: 'rag-ar', source: 'handbook/rag-ar.md', text: 'التوليد المعزز بالاسترجاع تقنية تمنح النموذج اللغوي الوثائق التي يحتاجها وقت السؤال.', metadata: { lang: 'ar' } },
    { docId: 'rag-en', source: 'handbook/rag-en.md', text: 'Retrieval-augmented generation gives a model the documents it needs at question time.', metadata: { lang: 'en' } },
  ]);
  const arabic = await engine.run('ما هو التوليد المعزز بالاسترجاع؟', { metadataFilters: { lang: 'ar' } });
  assert.match(arabic.context, /التوليد المعزز بالاسترجاع/);
  assert.doesNotMatch(arabic.context, /Retrieval-augmented/);
  assert.ok(explainResult(arabic).length > 0);
  await assert.rejects(() => engine.run('x', { maxChunks: -1 }), (error) => ZerdaError.isInstance(error) && /maxChunks/.test(error.message));

  const imported = await import('@zerda/context');
  assert.equal(require('@zerda/context').ContextEngine, imported.ContextEngine, 'require and import give the same module');
  assert.equal(typeof require('@zerda/cli/inspector').renderInspector, 'function');
  assert.equal(typeof require('@zerda/ai-sdk').contextTool, 'function');
  assert.equal(typeof require('@zerda/langchain').ZerdaRetriever, 'function');
  assert.equal(typeof require('@zerda/mcp').createContextServer, 'function');
  console.log(`require ok: ${arabic.chunks.length} chunk(s), ${arabic.budget.used}/${arabic.budget.limit}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
