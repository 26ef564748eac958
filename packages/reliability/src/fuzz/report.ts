import { DEFECT_OUTCOMES, type FuzzReport, type Outcome } from './runner.js';

/** The report as text: counts by outcome, rejections by code, the slowest call, and the first findings with how to replay them. */
export function formatReport(report: FuzzReport): string {
  const lines: string[] = [];
  lines.push(`fuzz: ${report.casesRun} cases, seed ${report.seed}, ${(report.elapsedMs / 1000).toFixed(1)} s${report.timedOut ? ' (time box reached)' : ''}, ${Object.keys(report.byTarget).length} targets`);
  lines.push('outcomes:');
  for (const [outcome, count] of Object.entries(report.outcomes) as Array<[Outcome, number]>) {
    lines.push(`  ${outcome.padEnd(15)} ${String(count).padStart(9)}${DEFECT_OUTCOMES.includes(outcome) ? '   (defect)' : ''}`);
  }
  const codes = Object.entries(report.rejectedByCode).sort((a, b) => b[1] - a[1]);
  if (codes.length > 0) lines.push(`rejected by code: ${codes.map(([code, count]) => `${code} ${count}`).join(', ')}`);
  lines.push(`slowest call: ${report.slowest.ms} ms (${report.slowest.target}, case ${report.slowest.caseIndex})`);
  if (report.slowNotRepeated > 0) lines.push(`slow once but not on an immediate replay (a collector or machine pause; counted by the replay): ${report.slowNotRepeated}`);
  for (const finding of report.findings.slice(0, 20)) {
    lines.push(`\n[${finding.outcome}] ${finding.target} — replay: pnpm fuzz --seed ${report.seed} --case ${finding.caseIndex}\n  ${finding.message.split('\n').join('\n  ')}`);
  }
  if (report.findings.length > 20) lines.push(`\n… ${report.findings.length - 20} more findings`);
  return lines.join('\n');
}
