import type { Arbitrary } from 'fast-check';
import type FastCheck from 'fast-check';
import type { FilterScalar, JsonValue, Metadata, MetadataFilter } from '@zerda/types';

/** Vocabularies the generated rows and filters draw from; defaults cover the awkward cases. */
export interface FilterArbitraryOptions {
  /** Metadata keys (also used in filters). `docId` and `source` are chunk fields in filters. */
  keys?: readonly string[];
  /** String values: case, digits, `"null"`, quotes, Arabic with and without diacritics, emoji, U+FFFF. */
  strings?: readonly string[];
  /** Number values: integers, decimals, negatives, tiny and huge magnitudes. */
  numbers?: readonly number[];
  /** Document ids and sources the rows take. */
  docIds?: readonly string[];
  sources?: readonly string[];
}

/** The generators {@link filterArbitraries} returns. */
export interface FilterArbitraries {
  scalar: Arbitrary<FilterScalar>;
  /** Metadata with scalar, array, nested-array and object values. */
  metadata: Arbitrary<Metadata>;
  /** A row: metadata plus a docId and a source. */
  row: Arbitrary<{ metadata: Metadata; docId: string; source: string }>;
  /** A filter of the shared language: field conditions (one or two operators), `$and`, `$or`, `$not`, nested. */
  filter: Arbitrary<MetadataFilter>;
}

export const DEFAULT_FILTER_KEYS = ['lang', 'year', 'tags', 'docId', 'source', "'; DROP TABLE x; --", 'مفتاح', 'a"b', 'a.b', 'toString', 'constructor'] as const;
export const DEFAULT_FILTER_STRINGS = ['', 'a', 'A', 'ab', 'b', 'z', '1', 'null', 'true', "O'Reilly", 'back\\slash', 'مرحبا', 'مَرْحَبًا', 'عربي', '😀', '\uFFFF', '\uE000', 'doc1', 'src1', '[]', '["a"]'] as const;
export const DEFAULT_FILTER_NUMBERS = [0, 1, -1, 1.5, 2, 2020, 2021, -0.25, 1e21, 1e-7, 9007199254740993, 0.1 + 0.2] as const;

/**
 * fast-check generators for differential tests of a backend's filter translation: generate rows
 * and filters, ask the backend, and compare with `matchesFilter`. Pass the fast-check module
 * (`import fc from 'fast-check'`) so this package does not depend on it.
 */
export function filterArbitraries(fc: typeof FastCheck, options: FilterArbitraryOptions = {}): FilterArbitraries {
  const keys = options.keys ?? DEFAULT_FILTER_KEYS;
  const strings = options.strings ?? DEFAULT_FILTER_STRINGS;
  const numbers = options.numbers ?? DEFAULT_FILTER_NUMBERS;
  const scalar: Arbitrary<FilterScalar> = fc.oneof(fc.constantFrom(...strings), fc.constantFrom(...numbers), fc.boolean(), fc.constant(null));
  const ordered: Arbitrary<string | number> = fc.oneof(fc.constantFrom(...strings), fc.constantFrom(...numbers));
  const value: Arbitrary<JsonValue> = fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 2, arbitrary: fc.array(scalar, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.array(fc.array(scalar, { maxLength: 2 }), { minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('x', 'lang'), scalar, { maxKeys: 2 }) },
  );
  const metadata = fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 5 }) as Arbitrary<Metadata>;
  const row = fc.record({
    metadata,
    docId: fc.constantFrom(...(options.docIds ?? ['doc1', 'doc2', 'مستند'])),
    source: fc.constantFrom(...(options.sources ?? ['src1', 'src2', '😀', '\uFFFF'])),
  });
  const operator = fc.oneof(
    fc.record({ $eq: scalar }),
    fc.record({ $ne: scalar }),
    fc.record({ $gt: ordered }),
    fc.record({ $gte: ordered }),
    fc.record({ $lt: ordered }),
    fc.record({ $lte: ordered }),
    fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ $exists: fc.boolean() }),
  );
  // One or two operators per field: with more, the conjunction is nearly always empty and proves little.
  const operators = fc.tuple(operator, fc.option(operator)).map(([first, second]) => ({ ...second, ...first }));
  const condition = fc.oneof(scalar, operators);
  const { filter } = fc.letrec<{ filter: MetadataFilter; field: MetadataFilter; logical: MetadataFilter }>((tie) => ({
    field: fc.dictionary(fc.constantFrom(...keys), condition, { minKeys: 1, maxKeys: 2 }) as Arbitrary<MetadataFilter>,
    logical: fc.oneof(
      fc.record({ $and: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $or: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $not: tie('filter') }),
    ) as Arbitrary<MetadataFilter>,
    filter: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('field'), tie('field'), tie('logical')),
  }));
  return { scalar, metadata, row, filter };
}
