// Types of scripts/postgres-fixture.mjs, for the TypeScript tests and benchmarks that start a server.

export const PGVECTOR_TARBALL: string;

export type PostgresAvailability =
  | { available: true; binDirectory: string; version: string; pgvector: string | undefined; canBuildExtensions: boolean }
  | { available: false; reason: string };

export function postgresAvailability(): PostgresAvailability;

export function vendoredPgvector(): string | undefined;

export function ensurePgvector(options?: { log?: (line: string) => void }): { ok: true; version: string; built: boolean } | { ok: false; reason: string };

export interface PostgresServer {
  readonly version: string;
  readonly pgvector: string | undefined;
  readonly binDirectory: string;
  readonly dataDirectory: string;
  readonly directory: string;
  readonly port: number;
  readonly url: string;
  postmasterPid(): number | undefined;
  crash(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  stopSync(): void;
}

export function startPostgres(options?: { settings?: Record<string, string>; fsync?: boolean; log?: (line: string) => void }): Promise<PostgresServer>;

export function withTestPostgres<T>(env: Record<string, string | undefined>, fn: () => Promise<T> | T, options?: { log?: (line: string) => void }): Promise<T>;
