import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble';
import { BM25Retriever } from '@langchain/community/retrievers/bm25';
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { SystemUnavailableError, documentContent, type BuildInput, type QueryEmbedder, type SearchSystem } from './search-system.js';

/** LangChain documents: pageContent is the title line plus the text (what BM25Retriever searches), the id in metadata. */
function toDocuments(input: BuildInput): Document[] {
  return input.documents.map((document) => new Document({ pageContent: documentContent(document), metadata: { id: document.id }, id: document.id }));
}

function idsOf(documents: readonly Document[], k: number): string[] {
  return documents.slice(0, k).map((document) => String(document.metadata.id));
}

/** The run's embedding model as LangChain `Embeddings` (documents arrive pre-embedded through `addVectors`). */
class RunEmbeddings extends Embeddings {
  constructor(private readonly embedQueryText: QueryEmbedder) {
    super({});
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map(async (text) => Array.from(await this.embedQueryText(text))));
  }

  async embedQuery(text: string): Promise<number[]> {
    return Array.from(await this.embedQueryText(text));
  }
}

/** LangChain.js `BM25Retriever.fromDocuments(docs, { k })` (its okapibm25 scoring and whitespace/lower-case preprocessing). */
export class LangChainBm25System implements SearchSystem {
  readonly id = 'langchain-bm25';
  readonly settings = "@langchain/community 1.1.29 BM25Retriever.fromDocuments(docs, { k }); pageContent = title + '\\n' + text; its default preprocessing (lower case, split on whitespace), scores every document per query";
  private documents: Document[] = [];

  async build(input: BuildInput): Promise<void> {
    this.documents = toDocuments(input);
  }

  async search(query: string, k: number): Promise<string[]> {
    const retriever = BM25Retriever.fromDocuments(this.documents, { k });
    return idsOf(await retriever.invoke(query), k);
  }
}

/** LangChain.js `EnsembleRetriever` of BM25Retriever and a `MemoryVectorStore` retriever, default weights 0.5/0.5 (RRF c 60). */
export class LangChainEnsembleSystem implements SearchSystem {
  readonly id = 'langchain-ensemble';
  readonly settings: string;
  private readonly embeddings: RunEmbeddings;
  private documents: Document[] = [];
  private store: MemoryVectorStore | undefined;

  constructor(embedQuery: QueryEmbedder | undefined, modelId: string) {
    if (!embedQuery) throw new SystemUnavailableError('langchain-ensemble needs an embedding model for this language (none available)');
    this.embeddings = new RunEmbeddings(embedQuery);
    this.settings = `@langchain/classic 1.0.50 EnsembleRetriever({ retrievers: [BM25Retriever (k), MemoryVectorStore.asRetriever(k)] }) with default weights 0.5/0.5, c 60; MemoryVectorStore (cosine, exact) filled with addVectors using ${modelId}`;
  }

  async build(input: BuildInput): Promise<void> {
    if (!input.vectors) throw new SystemUnavailableError('langchain-ensemble needs document embeddings');
    this.documents = toDocuments(input);
    this.store = new MemoryVectorStore(this.embeddings);
    await this.store.addVectors(
      input.vectors.map((vector) => Array.from(vector)),
      this.documents,
    );
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.store) throw new Error('langchain-ensemble: build() first');
    const ensemble = new EnsembleRetriever({ retrievers: [BM25Retriever.fromDocuments(this.documents, { k }), this.store.asRetriever({ k })] });
    return idsOf(await ensemble.invoke(query), k);
  }
}
