import { NEGATED_RANGE, SUPERSET, allOf, anyOf, constant, leaf, pushDownFilter, type BackendClause, type FieldTranslator, type MetadataFilter } from '@zerda/types';
import { presenceTerm, valueTerm } from '@zerda/types';
import { stringFieldTranslator, type TranslatedFilter as KitTranslatedFilter } from '@zerda/vector-kit';
import { DOC_ID_FIELD, SOURCE_FIELD, TERMS_FIELD, numberField } from './pinecone-records.js';

/** A Pinecone metadata filter (the MongoDB-like syntax of Pinecone's query and delete requests). */
export type PineconeFilter = BackendClause;

/**
 * A translated filter (the kit's, with `matchesNothing` always given): `filter` (or `undefined`
 * for "everything"). When `exact` is false the Pinecone filter keeps a superset of the matching
 * records and results must be checked with `matchesFilter`.
 */
export type TranslatedFilter = Required<KitTranslatedFilter<PineconeFilter>>;

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

function fieldFor(key: string): FieldTranslator {
  return key === 'docId' ? stringFieldTranslator(DOC_ID_FIELD) : key === 'source' ? stringFieldTranslator(SOURCE_FIELD) : metadataField(key);
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
