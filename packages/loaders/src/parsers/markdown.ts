import { parseDocument } from 'yaml';
import type { JsonValue, Metadata } from '@zerda/types';
import { limitExceeded, unreadable } from '../errors.js';

// Aliases one front matter block may expand (yaml's own guard against alias bombs).
const MAX_YAML_ALIASES = 100;
import type { ParsedDocument } from '../types.js';

// YAML front matter: a first line of exactly "---", the block, and a closing "---" or "...".
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const ATX_H1 = /^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/m;

/** A YAML value as JSON: dates become ISO strings, non-finite numbers strings, undefined is dropped. */
export function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'object': {
      if (Array.isArray(value)) return value.map((item) => toJsonValue(item) ?? null);
      const out: Record<string, JsonValue> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (key === '__proto__') continue;
        const converted = toJsonValue(item);
        if (converted !== undefined) out[key] = converted;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * Splits YAML front matter from a Markdown text. The front matter (parsed by `yaml`, YAML 1.2 core
 * schema: no code is ever evaluated) must be a mapping; an invalid block is an error naming its line.
 */
export function splitFrontMatter(text: string, file: string): { body: string; data: Metadata } {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { body: text, data: {} };
  const parsed = parseDocument(match[1]!, { prettyErrors: false, uniqueKeys: false });
  if (parsed.errors.length > 0) {
    const error = parsed.errors[0]!;
    const line = (error.linePos?.[0]?.line ?? 0) + 1;
    throw unreadable(file, 'markdown', 'corrupt', `its front matter is not valid YAML (line ${line}: ${error.message.split('\n')[0]})`, error);
  }
  let data: unknown;
  try {
    data = parsed.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    // yaml refuses documents whose aliases expand exponentially ("billion laughs").
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      throw limitExceeded(file, 'markdown', 'maxYamlAliases', MAX_YAML_ALIASES, 'its front matter expands YAML aliases exponentially (an alias bomb)');
    }
    throw error;
  }
  if (data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data))) {
    throw unreadable(file, 'markdown', 'corrupt', 'its front matter must be a YAML mapping (key: value lines)');
  }
  return { body: text.slice(match[0].length), data: (toJsonValue(data ?? {}) ?? {}) as Metadata };
}

/** Markdown: front matter into metadata (its `title` becomes the title), the body kept as Markdown. */
export function parseMarkdown(text: string, file: string): ParsedDocument {
  const { body, data } = splitFrontMatter(text, file);
  const { title: frontTitle, ...metadata } = data;
  const title = typeof frontTitle === 'string' && frontTitle.trim() !== '' ? frontTitle.trim() : ATX_H1.exec(body)?.[1]?.trim();
  return { text: body.trim(), ...(title ? { title } : {}), metadata };
}
