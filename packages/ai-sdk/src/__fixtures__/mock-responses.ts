// Responses for the AI SDK's MockLanguageModelV4 in this package's tests.

/** Token usage of every mocked response. */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A generate response that answers with `text`. */
export const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });

/** A generate response that calls tool `toolName` with `input`. */
export const toolCall = (toolName: string, input: unknown) => ({
  content: [{ type: 'tool-call' as const, toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});

/** A stream response that answers with `text`. */
export function streamed(text: string) {
  return {
    stream: new ReadableStream({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
        controller.enqueue({ type: 'text-delta', id: 't', delta: text });
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
        controller.close();
      },
    }),
  };
}
