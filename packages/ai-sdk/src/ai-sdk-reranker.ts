import { rerank, type RerankingModel } from 'ai';
import { z } from 'zod';
import { invalidArgument, parseOrThrow, type Reranker } from '@zerda/context';

type RerankSettings = Parameters<typeof rerank>[0];

export interface AiSdkRerankerOptions {
  /** Name in diagnostics and traces. Default `ai-sdk:<provider>/<modelId>` (or the gateway id). */
  name?: string;
  /** Retries per call (the AI SDK's default is 2). */
  maxRetries?: number;
  /** Provider-specific options, passed to the model as they are. */
  providerOptions?: RerankSettings['providerOptions'];
  /** Extra HTTP headers for HTTP providers. */
  headers?: Record<string, string>;
}

const optionsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

function modelName(model: RerankingModel): string {
  return typeof model === 'string' ? model : `${model.provider}/${model.modelId}`;
}

/**
 * Adapts an AI SDK reranking model (Cohere, Amazon Bedrock, Together … or a gateway id such as
 * `cohere/rerank-v3.5`) to the engine's `reranker` option: the candidates' texts go to the AI SDK's
 * `rerank()` with `topN` and the run's abort signal, and its ranking (original index, relevance
 * score) comes back as the engine's `{ index, score }` entries.
 */
export function aiSdkReranker(model: RerankingModel, options: AiSdkRerankerOptions = {}): Reranker {
  if (typeof model !== 'string' && (model === null || typeof model !== 'object' || typeof (model as { doRerank?: unknown }).doRerank !== 'function')) {
    throw invalidArgument('model', 'an AI SDK reranking model (with doRerank) or a gateway model id', model);
  }
  const parsed = parseOrThrow(optionsSchema, options, 'options') ?? {};
  return {
    name: parsed.name ?? `ai-sdk:${modelName(model)}`,
    async rerank(query, candidates, { topN, signal }) {
      const { ranking } = await rerank({
        model,
        query,
        documents: candidates.map((candidate) => candidate.chunk.text),
        topN,
        ...(signal ? { abortSignal: signal } : {}),
        ...(parsed.maxRetries !== undefined ? { maxRetries: parsed.maxRetries } : {}),
        ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
        ...(parsed.headers ? { headers: parsed.headers } : {}),
      });
      return ranking.map(({ originalIndex, score }) => ({ index: originalIndex, score }));
    },
  };
}
