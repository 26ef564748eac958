// TypeScript consumer of the bridges, compiled the same three ways. The frameworks' own declaration
// files need the DOM library (ai) and types they do not install (json-schema), so this build skips
// checking library files and checks what the bridges' types give a program.
import { ContextEngine } from '@zerda/context';
import { contextMiddleware, contextTool } from '@zerda/ai-sdk';
import { ZerdaRetriever } from '@zerda/langchain';
import { createContextServer } from '@zerda/mcp';
import type { Document } from '@langchain/core/documents';

export async function bridges(engine: ContextEngine): Promise<Document[]> {
  const tool = contextTool(engine, { allowFilter: false });
  const middleware = contextMiddleware(engine, { placement: 'system' });
  const server = createContextServer(engine, { maxSearchResults: 5 });
  // @ts-expect-error placement is 'system' or 'user'
  contextMiddleware(engine, { placement: 'assistant' });
  void [tool, middleware, server];
  return new ZerdaRetriever({ engine }).invoke('ما هو التوليد المعزز بالاسترجاع؟');
}
