import { truncateAtWordBoundary } from '@zerda/text';
import type { ComposeOptions, ComposeResult, ContextComposer, ContextGuard, GuardResult, LengthCounter, QueryAnalysis, ScoredChunk } from '@zerda/types';

/** What composing within a budget needs from the engine. */
export interface BudgetedStages {
  composer: ContextComposer;
  /** Undefined when the guard is disabled. */
  guard: ContextGuard | undefined;
  counter: LengthCounter;
  template: ComposeOptions['template'];
  /** The composer is zerda's own, whose `stats.length` is exact, so the context need not be measured again. */
  trustComposerStats: boolean;
}

/** The outcome: the last composition, the guard's verdict on it, and the length of the final context. */
export interface BudgetedContext {
  composed: ComposeResult;
  guard: GuardResult;
  /** `counter(guard.context)`, never above the budget. */
  used: number;
  /** Compositions it took (1 unless the guard's redaction or the composer overshot). */
  attempts: number;
  /** The final context had to be cut after the guard (a last resort; `truncated` is then true). */
  cutAfterGuard: boolean;
  /** Milliseconds spent composing and guarding (all attempts). */
  composeMs: number;
  guardMs: number;
}

/** Compositions tried with a smaller budget before the guarded context is cut instead. */
const MAX_COMPOSITIONS = 4;
/** Cuts tried after the last composition before the context is given up as empty. */
const MAX_CUTS = 8;

/**
 * Composes `ranked` and guards the result so that the context returned is never longer than
 * `budget`, whatever the guard mode: redaction replaces a span such as `[INST]` with the longer
 * `[redacted]`, and a custom composer or guard may overshoot, so the guarded context is measured
 * and, when it is over, composition runs again with the budget lowered by the overshoot (the guard
 * always judges against the real budget). Should that not converge in a few attempts, the guarded
 * context is cut at a word boundary and checked again; a context that cannot be made to fit ends
 * as `''`, which the guard reports as empty.
 */
export async function composeWithinBudget(stages: BudgetedStages, ranked: ScoredChunk[], analysis: QueryAnalysis, budget: number): Promise<BudgetedContext> {
  const { composer, guard, counter, template } = stages;
  const time = { composeMs: 0, guardMs: 0 };
  const check = async (context: string, composed: ComposeResult): Promise<GuardResult> => {
    const started = performance.now();
    const verdict = guard ? await guard.check({ context, chunks: composed.chunks, analysis, budget, counter }) : { passed: true, warnings: [], context };
    time.guardMs += performance.now() - started;
    return verdict;
  };
  let fitBudget = budget;
  let composed: ComposeResult | undefined;
  let verdict: GuardResult | undefined;
  for (let attempt = 1; attempt <= MAX_COMPOSITIONS; attempt++) {
    const started = performance.now();
    composed = await composer.compose(ranked, { budget: fitBudget, counter, analysis, template });
    time.composeMs += performance.now() - started;
    verdict = await check(composed.context, composed);
    const unchanged = verdict.context === composed.context;
    const used = unchanged && stages.trustComposerStats ? composed.stats.length : counter(verdict.context);
    if (used <= budget) return { composed, guard: verdict, used, attempts: attempt, cutAfterGuard: false, ...time };
    if (fitBudget === 0) break;
    fitBudget = Math.max(0, fitBudget - Math.max(1, used - budget));
  }
  // Last resort: cut the guarded context itself, and check the cut (it may expose or hide a span).
  let target = budget;
  let source = verdict!.context;
  for (let cut = 0; cut < MAX_CUTS && target >= 0; cut++) {
    const candidate = truncateAtWordBoundary(source, target, counter);
    const checked = await check(candidate, composed!);
    const used = counter(checked.context);
    if (used <= budget) return { composed: composed!, guard: checked, used, attempts: MAX_COMPOSITIONS, cutAfterGuard: true, ...time };
    target -= Math.max(1, used - budget);
    source = candidate;
  }
  const empty = await check('', composed!);
  return { composed: composed!, guard: { ...empty, context: '' }, used: 0, attempts: MAX_COMPOSITIONS, cutAfterGuard: true, ...time };
}
