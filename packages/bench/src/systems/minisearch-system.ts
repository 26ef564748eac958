import MiniSearch from 'minisearch';
import type { BuildInput, SearchSystem } from './search-system.js';

/**
 * MiniSearch as its README sets it up: `fields: ['title', 'text']`, the default tokenizer and
 * term processing (lower case, split on Unicode spaces and punctuation), default search options
 * (OR of the terms, exact terms, BM25+ with its default k 1.2, b 0.7, d 0.5).
 */
export class MiniSearchSystem implements SearchSystem {
  readonly id = 'minisearch';
  readonly settings = "new MiniSearch({ fields: ['title', 'text'] }), addAll, search(query) with default options (OR, no prefix/fuzzy, BM25+ k 1.2 b 0.7 d 0.5)";
  private readonly index = new MiniSearch<{ id: string; title: string; text: string }>({ fields: ['title', 'text'] });

  async build(input: BuildInput): Promise<void> {
    this.index.addAll(input.documents.map((document) => ({ id: document.id, title: document.title, text: document.text })));
  }

  async search(query: string, k: number): Promise<string[]> {
    return this.index
      .search(query)
      .slice(0, k)
      .map((result) => String(result.id));
  }
}
