import { describe, expect, it } from 'vitest';
import { runAiSdkExample } from './index.js';

describe('AI SDK example', () => {
  it('answers in English and Arabic from the context, through the tool and through the middleware', async () => {
    const lines: string[] = [];
    const { tool, middleware } = await runAiSdkExample((line) => lines.push(line));
    for (const runs of [tool, middleware]) {
      expect(runs).toHaveLength(2);
      expect(runs[0]!.sources[0]).toBe('handbook/rag.md');
      expect(runs[0]!.answer).toMatch(/^Retrieval-augmented generation \(RAG\) gives a language model .*\[1\]$/);
      expect(runs[1]!.sources[0]).toBe('handbook/arabic.md');
      expect(runs[1]!.answer).toMatch(/العربية.*\[1\]$/);
    }
    expect(lines.join('\n')).toContain('contextMiddleware');
  });
});
