/** Where a command writes: the process streams, or buffers in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  /** The working directory commands resolve relative paths against. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** Resolves when the user asks a long-running command (`serve`) to stop: Ctrl-C or SIGTERM. */
  untilInterrupted(): Promise<void>;
}

/** The process's streams, working directory and environment; SIGINT/SIGTERM are caught only by `serve`. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    untilInterrupted: () =>
      new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }),
  };
}
