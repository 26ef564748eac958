import { uniqueName } from '@zerda/vector-conformance';

export { temporaryDirectory } from '@zerda/vector-conformance';

/** A table name unique within this process. */
export function uniqueTable(prefix: string): string {
  return uniqueName(prefix);
}
