import bm25 from 'wink-bm25-text-search';
import winkNLP, { type ItemToken } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import type { BuildInput, SearchSystem } from './search-system.js';

interface WinkEngine {
  defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: Record<string, number> }): boolean;
  definePrepTasks(tasks: Array<(input: string) => string[]>): number;
  addDoc(document: Record<string, string>, id: string): number;
  consolidate(fp?: number): boolean;
  search(text: string, limit?: number): Array<[string, number]>;
}

/**
 * wink-bm25-text-search as its README example sets it up: winkNLP with the English lite web model
 * as the preparation task (word tokens only, stop words removed, negation marked with `!`,
 * stemmed), field weights title 1 / body 2, default BM25 parameters (k1 1.2, b 0.75, k 1).
 */
export class WinkBm25System implements SearchSystem {
  readonly id = 'wink-bm25';
  readonly settings =
    "defineConfig({ fldWeights: { title: 1, body: 2 } }); definePrepTasks([winkNLP(wink-eng-lite-web-model): word tokens, no stop words, '!'-negation, stem]) as in its README; default BM25 k1 1.2, b 0.75";
  private readonly engine = (bm25 as unknown as () => WinkEngine)();
  private readonly prepare: (text: string) => string[];
  private documents: BuildInput['documents'] = [];

  constructor() {
    const nlp = winkNLP(model);
    const its = nlp.its;
    const prepare = (text: string): string[] => {
      const tokens: string[] = [];
      nlp
        .readDoc(text)
        .tokens()
        .filter((token: ItemToken) => token.out(its.type) === 'word' && !token.out(its.stopWordFlag))
        .each((token: ItemToken) => {
          // wink-nlp's declarations type `its.stem` as a model add-on reader that `out` does not accept; it works at run time.
          const stem = String((token.out as (reader: unknown) => unknown)(its.stem));
          tokens.push(token.out(its.negationFlag) ? `!${stem}` : stem);
        });
      return tokens;
    };
    this.engine.defineConfig({ fldWeights: { title: 1, body: 2 } });
    this.prepare = prepare;
    this.engine.definePrepTasks([prepare]);
  }

  async build(input: BuildInput): Promise<void> {
    this.documents = input.documents;
    for (const document of input.documents) this.engine.addDoc({ title: document.title, body: document.text }, document.id);
    this.engine.consolidate();
  }

  async search(query: string, k: number): Promise<string[]> {
    return this.engine.search(query, k).map(([id]) => id);
  }

  /** Counts the documents its preparation empties (only asked after a failure, so it costs no build time). */
  diagnose(): string | undefined {
    const empty = this.documents.filter((document) => this.prepare(`${document.title} ${document.text}`).length === 0).length;
    if (empty === 0) return undefined;
    return `its documented preparation (winkNLP with the English lite web model) keeps no token of ${empty} of ${this.documents.length} documents (no Arabic word survives its English word/stop-word filter), so they index as empty`;
  }
}
