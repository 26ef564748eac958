import { invalidArgument, metadataTerms, parseMetadataFilter, presenceTerm, valueTerm, type FilterScalar, type Metadata, type MetadataFilter } from '@zerda/types';
import { compileFilterTree, hasLoneSurrogate, type ConditionCompiler } from '@zerda/vector-kit';

/**
 * How metadata is made filterable in a Lance table. LanceDB's SQL (DataFusion) cannot express
 * zerda's exact filter semantics over a JSON document (its JSON functions coerce types: a string
 * `"2023"` compares as the number 2023), so every row carries three derived columns written at
 * `add` time, from which every operator compiles to exact SQL:
 *
 * - `filter_terms` (`List<Utf8>`, LabelList-indexable): one term `JSON.stringify([key])` saying the
 *   key exists, and one term `JSON.stringify([key, value])` per scalar value — the value itself, or
 *   every scalar element of a top-level array. JSON keeps types apart (`1`, `"1"`, `true`, `null`),
 *   so `array_has` is exact, type-strict equality, with the any-element rule for arrays.
 * - `filter_numbers` (Lance JSON): `{ key: number }` for the top-level numeric values only, so
 *   `json_get_float` never meets (and never coerces) a string.
 * - `filter_strings` (Lance JSON): `{ key: string }` for the top-level string values only.
 */
export interface FilterColumns {
  terms: string[];
  numbers: string;
  strings: string;
}

/** Builds the derived filter columns of one chunk's metadata (see {@link FilterColumns}). */
export function filterColumnsOf(metadata: Metadata): FilterColumns {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw invalidArgument('metadata', 'a metadata object', metadata);
  const numbers: Array<[string, number]> = [];
  const strings: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'number') numbers.push([key, value]);
    else if (typeof value === 'string') strings.push([key, value]);
  }
  // Object.fromEntries defines keys, so `__proto__` stays an ordinary key.
  return { terms: metadataTerms(metadata), numbers: JSON.stringify(Object.fromEntries(numbers)), strings: JSON.stringify(Object.fromEntries(strings)) };
}

/** A SQL string literal: single quotes doubled (DataFusion has no backslash escapes in '…'). */
export function sqlString(value: string): string {
  if (typeof value !== 'string') throw invalidArgument('value', 'a string', value);
  return `'${value.replace(/'/g, "''")}'`;
}

/** A float64 SQL value that round-trips exactly (JavaScript's shortest representation, parsed by Rust). */
function sqlNumber(value: number): string {
  return `CAST(${sqlString(String(value))} AS DOUBLE)`;
}

/**
 * UTF-8 byte order (Lance's string order) equals UTF-16 code unit order (JavaScript's `<`, the
 * order of `matchesFilter`) for every stored string compared with a bound made only of characters
 * below U+D800: the orders disagree only between a supplementary character and one in
 * U+E000–U+FFFF, and such a bound has neither at the position where the strings first differ.
 */
function orderSafe(bound: string): boolean {
  for (let i = 0; i < bound.length; i++) if (bound.charCodeAt(i) >= 0xd800) return false;
  return true;
}

/** The compiled filter: a SQL predicate and whether it is exactly the filter. */
export interface CompiledFilter {
  /** A boolean SQL expression that never evaluates to NULL. */
  sql: string;
  /**
   * True when `sql` holds exactly for the chunks `matchesFilter` accepts. When false, `sql` holds
   * for a superset of them (it only drops chunks that certainly fail), and results must be
   * post-filtered with `matchesFilter`.
   */
  exact: boolean;
}

const TRUE: CompiledFilter = { sql: 'TRUE', exact: true };
const FALSE: CompiledFilter = { sql: 'FALSE', exact: true };
const RANGE_SQL = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
type RangeOperator = keyof typeof RANGE_SQL;

function allOf(parts: CompiledFilter[]): CompiledFilter {
  // FALSE is always exact: a superset that is empty proves nothing matches.
  if (parts.some((part) => part.sql === 'FALSE')) return FALSE;
  const kept = parts.filter((part) => part.sql !== 'TRUE');
  const exact = parts.every((part) => part.exact);
  if (kept.length === 0) return { sql: 'TRUE', exact };
  if (kept.length === 1) return { sql: kept[0]!.sql, exact };
  return { sql: `(${kept.map((part) => part.sql).join(' AND ')})`, exact };
}

function anyOf(parts: CompiledFilter[]): CompiledFilter {
  if (parts.some((part) => part.sql === 'TRUE' && part.exact)) return TRUE;
  const exact = parts.every((part) => part.exact);
  // A superset branch that may hold anywhere makes the disjunction a superset of everything.
  if (parts.some((part) => part.sql === 'TRUE')) return { sql: 'TRUE', exact: false };
  const kept = parts.filter((part) => part.sql !== 'FALSE');
  if (kept.length === 0) return FALSE;
  if (kept.length === 1) return { sql: kept[0]!.sql, exact };
  return { sql: `(${kept.map((part) => part.sql).join(' OR ')})`, exact };
}

function not(part: CompiledFilter): CompiledFilter {
  if (part.sql === 'FALSE') return TRUE;
  // The negation of a superset is not a superset of the negation: only an exact part can be negated.
  if (!part.exact) return { sql: 'TRUE', exact: false };
  if (part.sql === 'TRUE') return FALSE;
  if (part.sql === 'FALSE') return TRUE;
  return { sql: `(NOT ${part.sql})`, exact: true };
}

interface FieldCompiler {
  equals(expected: FilterScalar): CompiledFilter;
  anyEquals(expected: FilterScalar[]): CompiledFilter;
  compare(operator: RangeOperator, bound: number | string): CompiledFilter;
  present(expected: boolean): CompiledFilter;
}

/** Conditions on a metadata key, through the derived filter columns. */
function metadataField(key: string, columns: LanceFilterColumnNames): FieldCompiler {
  const presence = `array_has(${columns.terms}, ${sqlString(presenceTerm(key))})`;
  const anyEquals = (expected: FilterScalar[]): CompiledFilter => {
    if (expected.length === 0) return FALSE;
    const terms = [...new Set(expected.map((value) => sqlString(valueTerm(key, value))))];
    const has = terms.length === 1 ? `array_has(${columns.terms}, ${terms[0]})` : `array_has_any(${columns.terms}, make_array(${terms.join(', ')}))`;
    // `null` also matches a missing key.
    return { sql: expected.includes(null) ? `(${has} OR NOT ${presence})` : has, exact: true };
  };
  return {
    equals: (expected) => anyEquals([expected]),
    anyEquals,
    compare(operator, bound) {
      if (typeof bound === 'number') {
        return { sql: `COALESCE(json_get_float(${columns.numbers}, ${sqlString(key)}) ${RANGE_SQL[operator]} ${sqlNumber(bound)}, FALSE)`, exact: true };
      }
      const stored = `json_get_string(${columns.strings}, ${sqlString(key)})`;
      if (orderSafe(bound)) return { sql: `COALESCE(${stored} ${RANGE_SQL[operator]} ${sqlString(bound)}, FALSE)`, exact: true };
      // Byte order may disagree with JavaScript's: keep every string value, post-filter the rest.
      return { sql: `(${stored} IS NOT NULL)`, exact: false };
    },
    present: (expected) => ({ sql: expected ? presence : `(NOT ${presence})`, exact: true }),
  };
}

/** Conditions on `docId`/`source`: NOT NULL string columns. */
function textColumnField(column: string): FieldCompiler {
  const anyEquals = (expected: FilterScalar[]): CompiledFilter => {
    // A non-string, or a string Lance could not have stored, never equals a stored id.
    const values = [...new Set(expected.filter((value): value is string => typeof value === 'string' && !hasLoneSurrogate(value)))];
    if (values.length === 0) return FALSE;
    if (values.length === 1) return { sql: `(${column} = ${sqlString(values[0]!)})`, exact: true };
    return { sql: `(${column} IN (${values.map(sqlString).join(', ')}))`, exact: true };
  };
  return {
    equals: (expected) => anyEquals([expected]),
    anyEquals,
    compare(operator, bound) {
      if (typeof bound !== 'string') return FALSE;
      if (orderSafe(bound)) return { sql: `(${column} ${RANGE_SQL[operator]} ${sqlString(bound)})`, exact: true };
      return { sql: 'TRUE', exact: false };
    },
    present: (expected) => (expected ? TRUE : FALSE),
  };
}

/** A field's compiler with the logic of compiled filters, for the kit's one operator switch. */
function withLogic(field: FieldCompiler): ConditionCompiler<CompiledFilter> {
  return { ...field, not, allOf, nothing: FALSE };
}

/** Column names the compiled SQL refers to (trusted identifiers, never user input). */
export interface LanceFilterColumnNames {
  terms: string;
  numbers: string;
  strings: string;
  docId: string;
  source: string;
}

/** The column names {@link LanceDbVectorStore} tables use. */
export const FILTER_COLUMN_NAMES: Readonly<LanceFilterColumnNames> = Object.freeze({
  terms: 'filter_terms',
  numbers: 'filter_numbers',
  strings: 'filter_strings',
  docId: 'doc_id',
  source: 'source',
});

/**
 * Translates a validated filter (see `parseMetadataFilter`) into a LanceDB SQL predicate over the
 * derived filter columns (see {@link FilterColumns}). Keys and values only ever appear inside
 * escaped string literals (or as JSON inside them). The result is exact for every operator except
 * string ranges whose bound contains a character at or above U+D800 (there byte order and
 * JavaScript order can differ); then `exact` is false, the predicate is a superset, and the caller
 * post-filters with `matchesFilter`.
 */
export function compileFilter(filter: MetadataFilter | undefined, columns: LanceFilterColumnNames = FILTER_COLUMN_NAMES): CompiledFilter {
  // Validated here too (depth and size bounded, so the recursion below cannot overflow the stack).
  if (filter !== undefined) filter = parseMetadataFilter(filter, 'filter');
  if (filter === undefined) return TRUE;
  return compileFilterTree<CompiledFilter>(filter, {
    allOf,
    anyOf,
    not,
    field: (key) => withLogic(key === 'docId' ? textColumnField(columns.docId) : key === 'source' ? textColumnField(columns.source) : metadataField(key, columns)),
  });
}
