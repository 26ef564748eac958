import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { testVectorStore } from '@zerda/vector-conformance';
import { ExampleMemoryStore } from './memory-example.js';

for (const metric of ['cosine', 'ip', 'l2'] as const) {
  testVectorStore({ name: `ExampleMemoryStore (${metric}), the README's example adapter`, create: () => new ExampleMemoryStore({ metric }) });
}

testVectorStore({
  name: 'ExampleMemoryStore (fixed dimensions)',
  create: () => new ExampleMemoryStore({ dimensions: 8 }),
});

it('is the adapter the README shows, byte for byte, and stays under 150 lines', () => {
  const source = readFileSync(new URL('./memory-example.ts', import.meta.url), 'utf8');
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /```ts file=src\/__examples__\/memory-example\.ts\n([\s\S]*?)```/.exec(readme);
  expect(block, 'the README has a ```ts file=src/__examples__/memory-example.ts block').not.toBeNull();
  expect(block![1]).toBe(source);
  expect(source.split('\n').length).toBeLessThan(150);
});
