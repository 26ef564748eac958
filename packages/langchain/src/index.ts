/** zerda for LangChain.js: `ZerdaRetriever`, a `BaseRetriever` over the context engine. */
export {
  ZerdaRetriever,
  chunkDocuments,
  contextDocument,
  type ZerdaChunkMetadata,
  type ZerdaContextMetadata,
  type ZerdaRetrieverInput,
  type ZerdaRetrieverMode,
} from './zerda-retriever.js';
