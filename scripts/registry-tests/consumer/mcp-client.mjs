// An MCP client for @zerda/mcp's README server example: spawns it over stdio with the SDK's own
// transport, lists the tools and asks build_context an Arabic question.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const client = new Client({ name: 'registry-test', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [process.argv[2]], stderr: 'inherit' }));
const { tools } = await client.listTools();
assert.deepEqual(tools.map((tool) => tool.name).sort(), ['build_context', 'search']);
const built = await client.callTool({ name: 'build_context', arguments: { query: 'ما هو التوليد المعزز بالاسترجاع؟' } });
assert.notEqual(built.isError, true, JSON.stringify(built));
assert.match(built.structuredContent.context, /التوليد المعزز بالاسترجاع/);
const search = await client.callTool({ name: 'search', arguments: { query: 'BM25 term frequency', limit: 2 } });
assert.equal(search.structuredContent.results[0].docId, 'bm25');
await client.close();
console.log(`mcp ok: ${built.structuredContent.citations.length} citation(s)`);
