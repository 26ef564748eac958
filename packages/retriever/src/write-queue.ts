// The write queue lives once in @zerda/types (vector stores serialise their writes with it too).
export { WriteQueue } from '@zerda/types';

/** Lets other tasks run (timers, I/O, other requests) during a long CPU-bound loop. */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => {
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });
}
