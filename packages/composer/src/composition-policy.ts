/**
 * How much of the budget a question's context keeps for the lead — lead packing of the same ranking
 * (the first candidate's opening sentences, then the next candidate's) — before the rest is spent by
 * value. The context always holds the lead packing of `share × budget` (or `confidentShare × budget`),
 * so it can only lose to lead packing of the whole budget where the answer lies beyond that share
 * and the value fit does not find it.
 */
export interface CompositionPolicy {
  /** Share of the budget kept for the lead when the sentence model is not confident, [0, 1]. */
  share: number;
  /** Share kept when it is: its best sentence is worth at least `confidence`, [0, 1]. */
  confidentShare: number;
  /** The sentence value (estimated probability of holding the answer) from which the model is confident, [0, 1]. */
  confidence: number;
  /**
   * How much more likely (by the sentence model, `measure`) the value fit must hold the answer than
   * lead packing of the whole budget for the value fit to be used, [0, 1].
   */
  margin: number;
  /** `presence` (1 − Π(1 − value), the estimated probability the answer is held) or `sum` (expected answer sentences). */
  measure: 'presence' | 'sum';
  /**
   * A later clause of a long sentence (cut into pieces at clause boundaries) is worth at least this
   * share of the clause before it, so an answer running on after a comma is kept contiguous, [0, 1].
   */
  continuation: number;
  /**
   * A sentence between two that are worth more is worth at least this share of the lesser of them,
   * so a run whose neighbours score high is not elided in the middle, [0, 1].
   */
  bridge: number;
  /**
   * Where the lead ends: at the last whole sentence that fits in its share (`sentences`), or at the
   * last whole word (`words`: the sentence it stops at is kept up to a word boundary, so a first
   * sentence longer than the share does not leave the lead empty).
   */
  lead: 'sentences' | 'words';
}
