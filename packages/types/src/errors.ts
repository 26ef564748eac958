/**
 * One error class for every failure zerda reports on purpose. `code` is stable and documented in
 * {@link ERROR_MESSAGES}; `details` carries the structured facts (field, received, expected …) the
 * message was built from, so callers can branch on data instead of parsing text.
 */
const MARKER = 'zerda.error';
const SYMBOL = Symbol.for(MARKER);

/** Every error code zerda throws, with the template its message is built from. */
export const ERROR_MESSAGES = {
  /** A value handed to a public entry point has the wrong type, shape or range. */
  ZERDA_INVALID_ARGUMENT: (d: ErrorDetails) =>
    `${d.field ?? 'value'} must be ${d.expected ?? 'valid'}, got ${d.received ?? 'an invalid value'}`,
  /** A configuration object failed validation (unknown key, out-of-range number …). */
  ZERDA_INVALID_CONFIG: (d: ErrorDetails) =>
    `${d.field ?? 'config'} must be ${d.expected ?? 'valid'}, got ${d.received ?? 'an invalid value'}`,
  /** An embedding does not have the dimensions the store or retriever was built for. */
  ZERDA_DIMENSION_MISMATCH: (d: ErrorDetails) =>
    `${d.field ?? 'embedding'} has ${d.received} dimensions, expected ${d.expected}`,
  /** An embedding holds NaN or infinite values, or is not a numeric array. */
  ZERDA_INVALID_EMBEDDING: (d: ErrorDetails) =>
    `${d.field ?? 'embedding'} must be ${d.expected ?? 'an array of finite numbers'}, got ${d.received ?? 'an invalid value'}`,
  /** A metadata filter is not valid in the shared filter language. */
  ZERDA_INVALID_FILTER: (d: ErrorDetails) =>
    `${d.field ?? 'filter'} must be ${d.expected ?? 'a valid metadata filter'}, got ${d.received ?? 'an invalid value'}`,
  /** A model could not be loaded (missing files offline, unknown id …). */
  ZERDA_MODEL_NOT_FOUND: (d: ErrorDetails) => `model ${d.model ?? ''} could not be loaded: ${d.reason ?? 'not found'}`,
  /** Persisted state on disk is missing, corrupt or written for other settings. */
  ZERDA_STORE_CORRUPT: (d: ErrorDetails) => `${d.path ?? 'store'} cannot be loaded: ${d.reason ?? 'corrupt data'}`,
  /**
   * A snapshot (an engine snapshot directory, or a store file or directory in the snapshot format)
   * failed a check when it was opened: `file` names the file (relative to the snapshot), `check`
   * the check that failed (`exists`, `size`, `sha256`, `format`, `version`, `json`, `consistency`).
   * Nothing is repaired: the snapshot is refused.
   */
  ZERDA_CORRUPT_SNAPSHOT: (d: ErrorDetails) =>
    `snapshot ${d.path ?? ''} cannot be opened: ${d.file ?? 'a file'} failed the ${d.check ?? 'integrity'} check: ${d.reason ?? 'corrupt data'}`,
  /** Reading or writing persisted state failed. */
  ZERDA_STORE_IO: (d: ErrorDetails) => `${d.operation ?? 'I/O'} on ${d.path ?? 'store'} failed: ${d.reason ?? 'unknown error'}`,
  /** A backend or strategy was asked for something it does not support. */
  ZERDA_UNSUPPORTED: (d: ErrorDetails) => `${d.operation ?? 'operation'} is not supported by ${d.component ?? 'this component'}${d.reason ? `: ${d.reason}` : ''}`,
  /** An operation needs state that does not exist yet (e.g. searching before anything was indexed). */
  ZERDA_NOT_READY: (d: ErrorDetails) => `${d.component ?? 'component'} is not ready: ${d.reason ?? 'not initialised'}`,
  /** A document could not be read: unreadable, encrypted, corrupt, empty or not in the expected encoding. */
  ZERDA_DOCUMENT_UNREADABLE: (d: ErrorDetails) => `${d.file ?? 'document'} cannot be loaded: ${d.reason ?? 'unreadable'}`,
  /**
   * A document was refused because reading it would exceed one of the loader's limits: `limit`
   * names the limit (`timeMs`, `memoryMb`, `maxInflatedBytes`, `maxZipEntries`, `maxPdfStreamBytes`,
   * `maxYamlAliases`, `nesting` …), `value` its setting and `reason` what the document holds.
   */
  ZERDA_DOCUMENT_LIMIT: (d: ErrorDetails) =>
    `${d.file ?? 'document'} was refused: ${d.reason ?? 'it exceeds a limit'} (limit ${String(d.limit ?? 'unknown')}${d.value === undefined ? '' : ` = ${String(d.value)}`})`,
  /** No loader handles this kind of document. */
  ZERDA_UNSUPPORTED_FORMAT: (d: ErrorDetails) =>
    `${d.file ?? 'document'} cannot be loaded: ${d.format ? `"${d.format}" is not a supported format` : 'its format is not recognised'}${d.expected ? ` (supported: ${d.expected})` : ''}`,
  /** A call to an external system (database, server, model runtime) failed. */
  ZERDA_BACKEND_ERROR: (d: ErrorDetails) => `${d.component ?? 'backend'} failed during ${d.operation ?? 'an operation'}: ${d.reason ?? 'unknown error'}`,
} as const;

export type ZerdaErrorCode = keyof typeof ERROR_MESSAGES;

/** Structured facts about a failure. `field` is a dotted path such as `chunk.text` or `config.cache.ttlMs`. */
export interface ErrorDetails {
  field?: string;
  received?: string;
  expected?: string;
  reason?: string;
  [key: string]: unknown;
}

export class ZerdaError extends Error {
  private readonly [SYMBOL] = true;
  readonly code: ZerdaErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ZerdaErrorCode, details: ErrorDetails = {}, options: { cause?: unknown; message?: string } = {}) {
    super(options.message ?? ERROR_MESSAGES[code](details), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ZerdaError';
    this.code = code;
    this.details = details;
  }

  /** True for any ZerdaError, even one thrown by another copy of this package. */
  static isInstance(error: unknown): error is ZerdaError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[SYMBOL] === true;
  }

  toJSON(): { name: string; code: ZerdaErrorCode; message: string; details: ErrorDetails } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** Builds a ZerdaError from its code and details (the message comes from {@link ERROR_MESSAGES}). */
export function createError(code: ZerdaErrorCode, details: ErrorDetails = {}, cause?: unknown): ZerdaError {
  return new ZerdaError(code, details, { cause });
}

/** Shorthand for the most common failure: a bad argument at a public boundary. */
export function invalidArgument(field: string, expected: string, value: unknown): ZerdaError {
  return new ZerdaError('ZERDA_INVALID_ARGUMENT', { field, expected, received: describeValue(value) });
}

/**
 * A short, human description of a value for error messages: its type, plus the value itself when
 * it is a small scalar (`number NaN`, `string "abc"`), never a huge dump.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `array(${value.length})`;
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as unknown as { length?: number }).length ?? value.byteLength})`;
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? `number ${value}` : `number ${String(value)}`;
    case 'string': {
      const shown = value.length > 40 ? `${value.slice(0, 37)}…` : value;
      return `string ${JSON.stringify(shown)}`;
    }
    case 'boolean':
      return `boolean ${value}`;
    case 'bigint':
      return 'bigint';
    case 'function':
      return 'function';
    case 'symbol':
      return 'symbol';
    default: {
      const name = (value as object).constructor?.name;
      return name && name !== 'Object' ? `${name} instance` : 'object';
    }
  }
}

/** Checks an integer option in [minimum, maximum]; throws a ZerdaError naming `field` otherwise. */
export function checkInteger(value: unknown, field: string, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum || value > maximum) {
    throw invalidArgument(field, `an integer from ${minimum} to ${maximum}`, value);
  }
  return value;
}

/** Checks a boolean option; throws a ZerdaError naming `field` otherwise. */
export function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw invalidArgument(field, 'a boolean', value);
  return value;
}

/** Details that never hold a caller's values: what {@link redactError} keeps. */
const SAFE_DETAILS = ['field', 'expected', 'operation', 'component', 'check', 'limit'] as const;

/**
 * The error as it may be shown to a model, a client or a trace: a `ZerdaError` with the same code
 * and field path but none of the values (a filter's value, a query's text, a backend's reason) that
 * the original's message may hold — `received` and `reason` read "withheld". Any other error
 * becomes `ZERDA_BACKEND_ERROR` "internal error". The original stays reachable as `cause` for the
 * application's own log; it is never serialised (`toJSON` shows only the redacted fields).
 */
export function redactError(error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) {
    const details: ErrorDetails = {};
    for (const key of SAFE_DETAILS) if (typeof error.details[key] === 'string') details[key] = error.details[key];
    if (error.details.received !== undefined) details.received = 'a value (withheld)';
    if (error.details.reason !== undefined) details.reason = 'details withheld';
    if (error.code === 'ZERDA_DIMENSION_MISMATCH') details.received = String(error.details.received ?? '?');
    const redacted = new ZerdaError(error.code, details, { cause: error });
    Object.defineProperty(redacted, 'cause', { enumerable: false });
    return redacted;
  }
  const redacted = new ZerdaError('ZERDA_BACKEND_ERROR', { component: 'zerda', operation: 'the request', reason: 'internal error (details withheld)' }, { cause: error });
  Object.defineProperty(redacted, 'cause', { enumerable: false });
  return redacted;
}
