import { ZerdaError } from '@zerda/types';

/** Exit codes of the `zerda` command (stable: scripts may rely on them). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** A failure while running (an I/O error, a backend that failed, a corrupt index …). */
  failure: 1,
  /** Bad usage: an unknown command or option, or an invalid option value. */
  usage: 2,
  /** No index where one was expected (run `zerda index` first), or an index this version cannot open. */
  noIndex: 3,
  /** `zerda index --strict`: the index was written, but some files could not be loaded. */
  partial: 4,
} as const;

/** An error the CLI reports as one line and an exit code, without a stack trace. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.failure, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A usage error (exit code 2) naming the option, what it got and what it expects. */
export function usageError(option: string, expected: string, received: string): CliError {
  return new CliError(`${option} must be ${expected}, got ${received}`, EXIT.usage);
}

const USAGE_CODES = new Set(['ZERDA_INVALID_ARGUMENT', 'ZERDA_INVALID_CONFIG', 'ZERDA_INVALID_FILTER']);

/** The exit code for anything thrown by a command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (ZerdaError.isInstance(error)) {
    if (USAGE_CODES.has(error.code)) return EXIT.usage;
    if (String(error.code) === 'ZERDA_CORRUPT_SNAPSHOT' || error.code === 'ZERDA_NOT_READY') return EXIT.noIndex;
  }
  return EXIT.failure;
}
