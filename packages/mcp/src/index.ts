/**
 * zerda as an MCP server: `createContextServer(engine)` registers the tools `search` and
 * `build_context` on an `McpServer` of `@modelcontextprotocol/sdk`; the `zerda-mcp` binary serves one
 * over stdio.
 */
export { createContextServer, type ContextServerOptions } from './context-server.js';
