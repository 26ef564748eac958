import { parseMetadataFilter, type FilterScalar, type MetadataFilter } from '@zerda/types';
import { compileFilterTree, type ConditionCompiler } from '@zerda/vector-kit';

/**
 * The SQL expressions a compiled filter refers to. Each must be a trusted expression (a quoted,
 * validated column name); filter keys and values never become part of SQL text.
 */
export interface FilterColumns {
  /** A `jsonb` object column holding the chunk metadata (NOT NULL). */
  metadata: string;
  /** A `text` NOT NULL column holding the chunk's document id. */
  docId: string;
  /** A `text` NOT NULL column holding the chunk's source. */
  source: string;
}

/**
 * Appends `value` to `parameters` and returns its placeholder. Every key and value of a filter
 * goes through here: the SQL text only ever contains placeholders, operators and column names.
 */
type Bind = (value: unknown) => string;

/**
 * A key for ordering strings by UTF-16 code unit, as JavaScript's `<` does. PostgreSQL's "C"
 * collation orders by UTF-8 bytes, i.e. by code point, which differs only for characters
 * U+E000–U+FFFF against supplementary characters (emoji …): in UTF-16 the latter come first. The
 * key spells the UTF-8 bytes in hex (one space before each byte, so bytes stay aligned) and moves
 * the two lead bytes of U+E000–U+FFFF (EE, EF) above the four-byte lead bytes (F0–F4).
 */
function utf16OrderKey(textExpression: string): string {
  return `(replace(replace(regexp_replace(encode(convert_to(${textExpression}, 'UTF8'), 'hex'), '(..)', ' \\1', 'g'), ' ee', ' f5'), ' ef', ' f6') COLLATE "C")`;
}

const RANGE_OPERATORS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** `{ [key]: value }` as JSON, built with define-semantics so that keys like `__proto__` stay ordinary keys. */
function singleEntryJson(key: string, value: unknown): string {
  return JSON.stringify(Object.fromEntries([[key, value]]));
}

/** Compiles conditions on a metadata field (a JSONB member that may be missing, scalar, array or object). */
class MetadataField {
  private keyPlaceholder: string | undefined;

  constructor(
    private readonly column: string,
    private readonly key: string,
    private readonly bind: Bind,
  ) {}

  private get keyParameter(): string {
    return (this.keyPlaceholder ??= `${this.bind(this.key)}::text`);
  }

  private exists(): string {
    return `(${this.column} ? ${this.keyParameter})`;
  }

  /**
   * `stored === expected`, or any element when the stored value is an array. JSONB containment
   * `{k: v}` matches a scalar equal to v; `{k: [v]}` matches an array holding v at its top level —
   * both forms can use a GIN (jsonb_path_ops) index.
   */
  equals(expected: FilterScalar): string {
    const asScalar = `${this.column} @> ${this.bind(singleEntryJson(this.key, expected))}::jsonb`;
    const inArray = `${this.column} @> ${this.bind(singleEntryJson(this.key, [expected]))}::jsonb`;
    if (expected === null) return `(NOT ${this.exists()} OR ${asScalar} OR ${inArray})`;
    return `(${asScalar} OR ${inArray})`;
  }

  /** Ordered comparison, true only for number vs number or string vs string (never NULL). */
  compare(operator: keyof typeof RANGE_OPERATORS, bound: number | string): string {
    const sqlOperator = RANGE_OPERATORS[operator];
    const member = `(${this.column} -> ${this.keyParameter})`;
    if (typeof bound === 'number') {
      // JSONB orders numbers numerically; the type test keeps strings, booleans and arrays out.
      return `COALESCE(jsonb_typeof(${member}) = 'number' AND ${member} ${sqlOperator} ${this.bind(JSON.stringify(bound))}::jsonb, FALSE)`;
    }
    const stored = `(${this.column} ->> ${this.keyParameter})`;
    return `COALESCE(jsonb_typeof(${member}) = 'string' AND ${utf16OrderKey(stored)} ${sqlOperator} ${utf16OrderKey(`${this.bind(bound)}::text`)}, FALSE)`;
  }

  present(expected: boolean): string {
    return expected ? this.exists() : `(NOT ${this.exists()})`;
  }
}

/** Compiles conditions on `docId`/`source`: always present, always a string. */
class TextColumnField {
  constructor(
    private readonly column: string,
    private readonly bind: Bind,
  ) {}

  equals(expected: FilterScalar): string {
    return typeof expected === 'string' ? `(${this.column} = ${this.bind(expected)}::text)` : 'FALSE';
  }

  compare(operator: keyof typeof RANGE_OPERATORS, bound: number | string): string {
    if (typeof bound !== 'string') return 'FALSE';
    return `(${utf16OrderKey(this.column)} ${RANGE_OPERATORS[operator]} ${utf16OrderKey(`${this.bind(bound)}::text`)})`;
  }

  present(expected: boolean): string {
    return expected ? 'TRUE' : 'FALSE';
  }
}

function anyOf(parts: string[]): string {
  return parts.length === 0 ? 'FALSE' : parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
}

function allOf(parts: string[]): string {
  return parts.length === 0 ? 'TRUE' : parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`;
}

/** Exact negation: every expression compiled here is TRUE or FALSE, never NULL. */
function not(part: string): string {
  return `(NOT ${part})`;
}

/** A field's compiler with SQL's logic, for the kit's one operator switch. */
function conditionCompiler(field: MetadataField | TextColumnField): ConditionCompiler<string> {
  return {
    equals: (value) => field.equals(value),
    anyEquals: (values) => anyOf(values.map((value) => field.equals(value))),
    compare: (operator, bound) => field.compare(operator, bound),
    present: (expected) => field.present(expected),
    not,
    allOf,
    nothing: 'FALSE',
  };
}

/**
 * Translates a validated filter (see `parseMetadataFilter`) into a boolean SQL expression with
 * exactly the semantics of `matchesFilter`, appending every key and value to `parameters` as a
 * bind parameter. The expression is never NULL, so `$not` negates exactly. Returns `TRUE` for an
 * empty or missing filter.
 */
export function compileFilter(filter: MetadataFilter | undefined, parameters: unknown[], columns: FilterColumns): string {
  // Validated here too (depth and size bounded, so the recursion below cannot overflow the stack).
  if (filter !== undefined) filter = parseMetadataFilter(filter, 'filter');
  const bind: Bind = (value) => `$${parameters.push(value)}`;
  if (filter === undefined) return 'TRUE';
  return compileFilterTree<string>(filter, {
    allOf,
    anyOf,
    not,
    field: (key) =>
      conditionCompiler(key === 'docId' ? new TextColumnField(columns.docId, bind) : key === 'source' ? new TextColumnField(columns.source, bind) : new MetadataField(columns.metadata, key, bind)),
  });
}
