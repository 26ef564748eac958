/**
 * zerda for the Vercel AI SDK (`ai` 7): a tool that builds a context when the model asks for one, a
 * language-model middleware that builds it for every user message, and an adapter that makes any
 * AI SDK reranking model the engine's reranker.
 */
export { contextTool, contextForModel, type ContextToolInput, type ContextToolOptions, type ContextToolOutput, type ContextToolContext, type ToolRunOptions } from './context-tool.js';
export { contextMiddleware, renderContext, type ContextMetadata, type ContextMiddlewareOptions, type LanguageModelCallOptions } from './context-middleware.js';
export { aiSdkReranker, type AiSdkRerankerOptions } from './ai-sdk-reranker.js';
export { promptWindowMiddleware, promptWindowPrepareStep, DEFAULT_OUTPUT_RESERVE, type PromptWindowOptions, type PrepareStepInput } from './prompt-window-middleware.js';
export { KNOWN_MODELS, knownModel, type KnownModel } from './prompt-window-models.js';
