import { describe, expect, it } from 'vitest';
import { ContextEngine } from '@zerda/context';
import { MemoryVectorStore } from '@zerda/vector-memory';
import { TransformersEmbedder, staticGloveModelPath } from '@zerda/embeddings';
import { StructureAwareChunker } from './structure-aware-chunker.js';
import { ArabicTextChunker } from './arabic-text-chunker.js';
import { ContextAwareChunker } from './context-aware-chunker.js';

const GUIDE = `# Garden guide

## Tomatoes

Tomatoes need full sun and regular watering. Stake them early so the stems do not break.

- water at the base
- mulch in July

## Cucumbers

Cucumbers climb: give them a trellis. They like warm soil and plenty of water.
`;
const ARTICLE = 'الطماطم تحتاج إلى الشمس والماء. أما الخيار فيحب التربة الدافئة؟ نعم، ويحتاج إلى دعامة يتسلقها.';

// A deterministic bag-of-words embedding: enough for the vector side of the pipeline to work.
const VOCABULARY = ['tomato', 'sun', 'water', 'stake', 'cucumber', 'trellis', 'soil', 'mulch', 'الطماطم', 'الخيار', 'الماء'];
function bagOfWords(texts: string[]): number[][] {
  return texts.map((text) => {
    const lower = text.toLowerCase();
    return VOCABULARY.map((word) => lower.split(word).length - 1 + 0.01);
  });
}

describe('engine.indexDocuments with zerda chunkers', () => {
  it('indexes Markdown through StructureAwareChunker into a vector DB and cites exact spans', async () => {
    const texts = [GUIDE, ARTICLE];
    const vectorDb = new MemoryVectorStore({ embedder: bagOfWords });
    const engine = new ContextEngine({ embedder: bagOfWords });
    await engine.indexDocuments(texts, new StructureAwareChunker({ size: 120 }), { vectorDb, docIds: ['guide', 'article'], sources: ['guide.md', 'article.txt'] });
    expect(await vectorDb.count()).toBeGreaterThan(3);

    const result = await engine.run('How do I grow cucumbers on a trellis?');
    const top = result.chunks[0]!.chunk;
    expect(top.docId).toBe('guide');
    expect(top.source).toBe('guide.md');
    expect(top.metadata.headingPath).toEqual(['Garden guide', 'Cucumbers']);
    expect(GUIDE.slice(top.position.start, top.position.end)).toBe(top.text);
    expect(result.context).toContain('trellis');
  });

  it('works with the Arabic chunker and the async semantic chunker', async () => {
    const engine = new ContextEngine();
    await engine.indexDocuments([ARTICLE], new ArabicTextChunker({ size: 40 }), { docIds: ['article'] });
    const arabic = await engine.run('الخيار والتربة');
    expect(arabic.chunks[0]!.chunk.metadata.language).toBe('ar');
    expect(arabic.chunks[0]!.chunk.text).toContain('الخيار');

    const semantic = new ContextEngine();
    await semantic.indexDocuments([GUIDE], new ContextAwareChunker({ size: 200, embedder: bagOfWords }), { docIds: ['guide'] });
    const found = await semantic.run('stake tomatoes');
    expect(found.chunks[0]!.chunk.text).toContain('Stake them early');
  });

  const glove = staticGloveModelPath();
  describe.skipIf(!glove.available)(`with the static GloVe model (${glove.available ? 'built' : 'not built: run pnpm --filter @zerda/embeddings run build:glove-model'})`, () => {
    it('embeds StructureAwareChunker chunks with TransformersEmbedder end to end', async () => {
      const embedder = new TransformersEmbedder({ modelId: glove.modelId, localModelPath: glove.localModelPath });
      const vectorDb = new MemoryVectorStore({ embedder });
      const engine = new ContextEngine({ embedder });
      await engine.indexDocuments([GUIDE], new StructureAwareChunker({ size: 120 }), { vectorDb, docIds: ['guide'] });
      expect(vectorDb.dimensions).toBe(100);
      const result = await engine.run('cucumbers trellis');
      const top = result.chunks[0]!;
      expect(top.chunk.metadata.heading).toBe('Cucumbers');
      expect(top.retrievers).toContain('vector');
      expect(top.scores.vector).toBeGreaterThan(0);
    }, 120_000);
  });
});
