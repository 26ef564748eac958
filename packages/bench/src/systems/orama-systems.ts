import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import { stemmer as arabicStemmer, language as arabicLanguage } from '@orama/stemmers/arabic';
import { stopwords as arabicStopwords } from '@orama/stopwords/arabic';
import { stopwords as englishStopwords } from '@orama/stopwords/english';
import { SystemUnavailableError, type BuildInput, type QueryEmbedder, type SearchSystem } from './search-system.js';

/** Orama's tokenizer setup per language, as its text-analysis docs describe (stemming + stop words). */
function tokenizerFor(language: string): { settings: string; components: Record<string, unknown> } {
  if (language === 'ar') {
    return {
      settings: "tokenizer { language: 'arabic', stemming: true, stemmer from @orama/stemmers/arabic, stopWords from @orama/stopwords/arabic }",
      components: { tokenizer: { language: arabicLanguage, stemming: true, stemmer: arabicStemmer, stopWords: arabicStopwords } },
    };
  }
  return {
    settings: "tokenizer { language: 'english', stemming: true (built-in English stemmer), stopWords from @orama/stopwords/english }",
    components: { tokenizer: { language: 'english', stemming: true, stopWords: englishStopwords } },
  };
}

/** Orama full-text search (BM25 with its defaults k 1.2, b 0.75, d 0.5) over title and text. */
export class OramaFullTextSystem implements SearchSystem {
  readonly id = 'orama-fulltext';
  readonly settings: string;
  private readonly database: AnyOrama;

  constructor(language: string) {
    const tokenizer = tokenizerFor(language);
    this.settings = `create({ schema: { title: 'string', text: 'string' }, components: { ${tokenizer.settings} } }); search({ term, limit }) (mode fulltext, threshold 1, BM25 defaults)`;
    this.database = create({ schema: { title: 'string', text: 'string' } as const, components: tokenizer.components as never });
  }

  async build(input: BuildInput): Promise<void> {
    await insertMultiple(this.database, input.documents.map((document) => ({ id: document.id, title: document.title, text: document.text })) as never);
  }

  async search(query: string, k: number): Promise<string[]> {
    const results = await search(this.database, { term: query, limit: k } as never);
    return results.hits.map((hit) => String(hit.id));
  }
}

/** Orama hybrid search (full-text + its flat vector index) with the run's embeddings. */
export class OramaHybridSystem implements SearchSystem {
  readonly id = 'orama-hybrid';
  readonly settings: string;
  private database: AnyOrama | undefined;
  private readonly embedQuery: QueryEmbedder;
  private readonly components: Record<string, unknown>;

  constructor(language: string, embedQuery: QueryEmbedder | undefined, modelId: string) {
    if (!embedQuery) throw new SystemUnavailableError('orama-hybrid needs an embedding model for this language (none available)');
    this.embedQuery = embedQuery;
    const tokenizer = tokenizerFor(language);
    this.components = tokenizer.components;
    this.settings =
      `schema adds embedding: 'vector[d]' (${modelId}); search({ mode: 'hybrid', term, vector: { value, property: 'embedding' }, similarity: 0, limit }); ` +
      `default hybrid weights text 0.5 / vector 0.5 after min-max normalisation; the default similarity threshold 0.8 is lowered to 0 because this model's cosines sit on another scale; ${tokenizer.settings}`;
  }

  async build(input: BuildInput): Promise<void> {
    const vectors = input.vectors;
    if (!vectors) throw new SystemUnavailableError('orama-hybrid needs document embeddings');
    const dimensions = vectors[0]?.length ?? 0;
    this.database = create({ schema: { title: 'string', text: 'string', embedding: `vector[${dimensions}]` } as never, components: this.components as never });
    await insertMultiple(
      this.database,
      input.documents.map((document, index) => ({ id: document.id, title: document.title, text: document.text, embedding: Array.from(vectors[index] as Float32Array) })) as never,
    );
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.database) throw new Error('orama-hybrid: build() first');
    const vector = await this.embedQuery(query);
    const results = await search(this.database, { mode: 'hybrid', term: query, vector: { value: Array.from(vector), property: 'embedding' }, similarity: 0, limit: k } as never);
    return results.hits.map((hit) => String(hit.id));
  }
}
