import type { BenchmarkReport, Section } from './report-shape.js';

/** Where the sections of a merged report came from (`--render A.json --merge B.json`). */
export type { MergedRun } from './report-shape.js';

/**
 * `base` with every section `other` ran taken from `other` (retrieval and context go together: the
 * context rows need the retrieval run's top 10), recording where they came from — for a full run
 * split into two runs (e.g. scale and vectors apart from retrieval and context); `only` limits it to
 * those sections. Targets are judged again by the caller.
 */
export function mergeReports(base: BenchmarkReport, other: BenchmarkReport, only?: readonly Section[]): BenchmarkReport {
  const sections = (Object.keys(other.sectionSeconds) as Section[]).filter((section) => !other.pending.includes(section) && (!only || only.includes(section) || (section === 'retrieval' && only.includes('context'))));
  if (sections.length === 0) throw new Error('--merge: that results.json finished no section');
  const merged: BenchmarkReport = { ...base, sectionSeconds: { ...base.sectionSeconds } };
  if (sections.includes('retrieval')) {
    merged.datasets = other.datasets;
    merged.retrieval = other.retrieval;
    merged.engine = other.engine;
    merged.naive = other.naive;
    merged.naiveAnswers = other.naiveAnswers;
  }
  if (sections.includes('scale')) merged.scale = other.scale;
  if (sections.includes('vectors')) merged.vectors = other.vectors;
  for (const section of sections) merged.sectionSeconds[section] = other.sectionSeconds[section];
  merged.pending = base.pending.filter((section) => !sections.includes(section) && !(section === 'context' && sections.includes('retrieval')));
  merged.mergedFrom = [
    ...(base.mergedFrom ?? []),
    { sections: sections.map((section) => (section === 'retrieval' ? 'retrieval + context' : section)), date: other.date, command: other.command, durationSeconds: other.durationSeconds, loadAverageAtStart: other.machine.loadAverageAtStart },
  ];
  return merged;
}
