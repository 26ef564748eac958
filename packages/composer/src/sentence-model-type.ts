// The shape of the sentence model, apart from its weights (`sentence-model.ts`, which
// `fit-composer --write` regenerates) and from the features it weighs (`sentence-value.ts`).

/** The model: a logistic regression over named sentence features (see `sentence-model.ts`). */
export interface SentenceModel {
  /** Feature name → weight; `bias` is the intercept. Features not listed weigh 0. */
  weights: Readonly<Record<string, number>>;
}
