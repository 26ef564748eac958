import type { CliIo } from '../io.js';

/** A CliIo that records what a command writes; `untilInterrupted` resolves when `interrupt()` is called. */
export function memoryIo(cwd: string, env: Record<string, string | undefined> = {}): CliIo & { out(): string; err(): string; interrupt(): void } {
  let stdout = '';
  let stderr = '';
  let interrupt: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve;
  });
  return {
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
    cwd,
    env,
    untilInterrupted: () => interrupted,
    out: () => stdout,
    err: () => stderr,
    interrupt: () => interrupt(),
  };
}
