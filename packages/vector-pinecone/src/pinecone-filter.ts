import { NEGATED_RANGE, SUPERSET, allOf, anyOf, constant, leaf, pushDownFilter, type FieldTranslator, type MetadataFilter } from '@zerda/types';
import { presenceTerm, valueTerm } from '@zerda/types';
import { DOC_ID_FIELD, SOURCE_FIELD, TERMS_FIELD, numberField } from './pinecone-records.js';

/** A Pinecone metadata filter (the MongoDB-like syntax of Pinecone's query and delete requests). */
export type PineconeFilter = Record<string, unknown>;

/**
 * A translated filter: `filter` (or `undefined` for "everything"), whether it matches nothing at
 * all, and whether it is exactly the zerda filter. When `exact` is false the Pinecone filter
 * keeps a superset of the matching records and results must be checked with `matchesFilter`.
 */
export interface TranslatedFilter {
  filter: PineconeFilter | undefined;
  matchesNothing: boolean;
  exact: boolean;
}

/**
 * Conditions on one field, compiled with a polarity: Pinecone has no `$not`, so negations are
 * pushed down to the leaves, where each operator has an exact complement.
 */
function metadataField(key: string): FieldTranslator {
  const presence = presenceTerm(key);
  return {
    anyEquals(values, negated) {
      if (values.length === 0) return constant(negated);
      const terms = [...new Set(values.map((value) => valueTerm(key, value)))];
      // `null` also matches a missing key.
      const matchesMissing = values.includes(null);
      if (!negated) {
        const listed = leaf(TERMS_FIELD, '$in', terms);
        return matchesMissing ? anyOf([listed, leaf(TERMS_FIELD, '$nin', [presence])]) : listed;
      }
      const unlisted = leaf(TERMS_FIELD, '$nin', terms);
      return matchesMissing ? allOf([unlisted, leaf(TERMS_FIELD, '$in', [presence])]) : unlisted;
    },
    compare(operator, bound, negated) {
      // Pinecone's range operators compare numbers only; zerda's string order is checked afterwards.
      if (typeof bound === 'string') return SUPERSET;
      const field = numberField(key);
      if (!negated) return leaf(field, operator, bound);
      // Not (x > b): x <= b, or no number stored under the key at all.
      return anyOf([leaf(field, NEGATED_RANGE[operator], bound), leaf(field, '$exists', false)]);
    },
    present: (expected) => leaf(TERMS_FIELD, expected ? '$in' : '$nin', [presence]),
  };
}

/** `docId`/`source`: a string field every zerda record has. */
function chunkField(field: string): FieldTranslator {
  return {
    anyEquals(values, negated) {
      const strings = [...new Set(values.filter((value): value is string => typeof value === 'string'))];
      if (strings.length === 0) return constant(negated);
      if (strings.length === 1) return leaf(field, negated ? '$ne' : '$eq', strings[0]);
      return leaf(field, negated ? '$nin' : '$in', strings);
    },
    compare(_operator, bound, negated) {
      if (typeof bound !== 'string') return constant(negated);
      return SUPERSET;
    },
    present: (expected) => constant(expected),
  };
}

function fieldFor(key: string): FieldTranslator {
  return key === 'docId' ? chunkField(DOC_ID_FIELD) : key === 'source' ? chunkField(SOURCE_FIELD) : metadataField(key);
}

/**
 * Translates a validated zerda filter (see `parseMetadataFilter`) into Pinecone's filter syntax
 * over the fields this package writes (see `pinecone-records.ts`), using only operators whose
 * Pinecone semantics are documented: `$eq $ne $gt $gte $lt $lte $in $nin $exists $and $or`.
 * `$not` is pushed down to the leaves (every leaf has an exact complement), and no part relies on
 * how Pinecone treats a missing field under `$ne`/`$nin`. Exact for everything except ranges with
 * a string bound, which Pinecone cannot compare: those keep a superset (`exact: false`).
 */
export function translateFilter(filter: MetadataFilter | undefined): TranslatedFilter {
  const { clause, matchesNothing, exact } = pushDownFilter(filter, fieldFor);
  return { filter: clause, matchesNothing, exact };
}
