import { NEGATED_RANGE, SUPERSET, allOf, anyOf, constant, leaf, pushDownFilter, type BackendClause, type FieldTranslator, type MetadataFilter, type PushdownResult } from '@zerda/types';
import { hasLoneSurrogate, stringFieldTranslator } from '@zerda/vector-kit';
import { DOC_ID_KEY, SOURCE_KEY, isNumberKey, numberKey, presenceKey, valueKey } from './chroma-records.js';

/** A Chroma `where` clause. */
export type ChromaWhere = BackendClause;

/**
 * A translated filter: what `pushDownFilter` returns, with its clause as the `where` (`undefined`
 * for "everything"). When `exact` is false the `where` keeps a superset and results must be
 * checked with `matchesFilter`.
 */
export type TranslatedWhere = Omit<PushdownResult, 'clause'> & { where: ChromaWhere | undefined };

/** Conditions on one field with a polarity: Chroma has no `$not`, so negations go to the leaves. */
function metadataField(key: string): FieldTranslator {
  return {
    anyEquals(values, negated) {
      if (values.length === 0) return constant(negated);
      const keys = [...new Set(values.map((value) => valueKey(key, value)))];
      // `null` also matches a missing key.
      if (values.includes(null)) keys.push(presenceKey(key));
      const term = (name: string, isPresence: boolean) => leaf(name, (isPresence ? !negated : negated) ? '$ne' : '$eq', true);
      const parts = keys.map((name) => term(name, name === presenceKey(key)));
      // Equal to any of the values: an OR of terms; under negation, equal to none: an AND.
      return negated ? allOf(parts) : anyOf(parts);
    },
    compare(operator, bound, negated) {
      // Chroma's range operators take numbers only; zerda's string order is checked afterwards.
      if (typeof bound === 'string') return SUPERSET;
      // The number counts only while its `zq:` flag is true (a replaced chunk may leave a stale `zn:` value).
      const isNumber = leaf(isNumberKey(key), '$eq', true);
      if (!negated) return allOf([leaf(numberKey(key), operator, bound), isNumber]);
      // Not (x > b): x <= b, or no number stored under the key.
      return anyOf([allOf([leaf(numberKey(key), NEGATED_RANGE[operator], bound), isNumber]), leaf(isNumberKey(key), '$ne', true)]);
    },
    present: (expected) => leaf(presenceKey(key), expected ? '$eq' : '$ne', true),
  };
}

// A lone surrogate cannot be stored (Chroma speaks UTF-8), so it never equals a stored docId or source.
const storable = (value: string) => !hasLoneSurrogate(value);

function fieldFor(key: string): FieldTranslator {
  if (key === 'docId') return stringFieldTranslator(DOC_ID_KEY, storable);
  return key === 'source' ? stringFieldTranslator(SOURCE_KEY, storable) : metadataField(key);
}

/**
 * Translates a validated zerda filter (see `parseMetadataFilter`) into a Chroma `where` over the
 * keys this package writes (see `chroma-records.ts`), with `$not` pushed down to the leaves.
 * Exact for everything except ranges with a string bound (Chroma compares numbers only): those
 * keep a superset and set `exact: false`.
 */
export function translateWhere(filter: MetadataFilter | undefined): TranslatedWhere {
  const { clause, matchesNothing, exact } = pushDownFilter(filter, fieldFor);
  return { where: clause, matchesNothing, exact };
}
