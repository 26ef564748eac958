import type { ContextResult, UsedChunk } from '@zerda/types';
import { invalidArgument } from '@zerda/types';

const FACTORS = ['retrieval', 'keywordBoost', 'sourceQuality', 'recency', 'position', 'composite'] as const;

function cell(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? '–' : value.toFixed(3);
}

function pad(text: string, width: number): string {
  const length = [...text].length;
  return length >= width ? text : text + ' '.repeat(width - length);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max([...title].length, ...rows.map((row) => [...(row[column] ?? '')].length)));
  const line = (row: string[]) => `| ${row.map((value, column) => pad(value, widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Longest excerpt of a sentence shown in the explanation (longer ones end with …). */
const EXCERPT = 80;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const characters = [...flat];
  return characters.length <= EXCERPT ? flat : `${characters.slice(0, EXCERPT - 1).join('')}…`;
}

/** Per sentence of a chunk the composer chose sentences from: kept (✓), cut to fill the budget (½) or left out (·), value, why. */
function sentenceLines(chunk: UsedChunk): string[] {
  if (!chunk.sentences) return [];
  const marks = { whole: '✓', prefix: '½', none: '·' } as const;
  return [
    `  ${chunk.chunk.id} (rank ${chunk.rank}): sentences kept ✓, cut to fill the budget ½, left out ·`,
    ...chunk.sentences.map((sentence) => {
      const why = [...sentence.reasons, ...(sentence.terms.length > 0 ? [`terms: ${sentence.terms.join(' ')}`] : [])].join(', ');
      return `    ${marks[sentence.kept]} ${sentence.value.toFixed(3)}  ${excerpt(chunk.chunk.text.slice(sentence.start, sentence.end))}${why ? `  [${why}]` : ''}`;
    }),
  ];
}

/**
 * A readable explanation of a `run()` result: the analysis, one row per chunk in the context with
 * every ranking factor, how much of it was kept and — where the composer chose sentences — every
 * sentence with its value, whether it was kept, and why (lead, query terms, neighbour of a matching
 * sentence, answer-type cue, title), the counts after each stage, guard findings and timings. Plain
 * text (Markdown tables), suitable for logs and terminals.
 */
export function explainResult(result: ContextResult): string {
  if (!result || typeof result !== 'object' || !Array.isArray((result as ContextResult).chunks)) {
    throw invalidArgument('result', 'a ContextResult returned by run()', result);
  }
  const { analysis } = result;
  const lines: string[] = [];
  lines.push(
    `query: ${result.query}${result.effectiveQuery !== result.query ? `  (effective: ${result.effectiveQuery})` : ''}`,
    `analysis: language=${analysis.language} intent=${analysis.intent} answerType=${analysis.answerType ?? 'other'} complexity=${analysis.complexity} keywords=[${analysis.keywords.join(', ')}]`,
    `budget: ${result.budget.used}/${result.budget.limit} ${result.budget.unit} (${Math.round(result.budget.utilization * 100)}%), template=${result.template}${result.fromCache ? ', from cache' : ''}`,
    '',
  );
  if (result.chunks.length > 0) {
    lines.push(
      table(
        ['#', 'chunk', 'source', 'retrievers', 'fit', 'kept', ...FACTORS],
        result.chunks.map((chunk) => [
          String(chunk.rank),
          chunk.chunk.id,
          chunk.chunk.source,
          (chunk.retrievers ?? []).join('+') || '–',
          chunk.fit,
          `${Math.round(chunk.keptRatio * 100)}%`,
          ...FACTORS.map((factor) => cell(chunk.scores[factor])),
        ]),
      ),
    );
    const chosen = result.chunks.flatMap(sentenceLines);
    if (chosen.length > 0) lines.push('', 'sentences:', ...chosen);
  } else {
    lines.push('(no chunk in the context)');
  }
  const { counts, timings } = result;
  lines.push(
    '',
    `stages: retrieved ${counts.retrieved} → after filter ${counts.afterFilter} → after rank ${counts.afterRank} → used ${counts.used}`,
  );
  if (result.dropped.length > 0) {
    const reasons = new Map<string, number>();
    for (const dropped of result.dropped) reasons.set(dropped.reason, (reasons.get(dropped.reason) ?? 0) + 1);
    lines.push(`dropped: ${[...reasons].map(([reason, count]) => `${reason} ×${count}`).join(', ')}`);
  }
  lines.push(`guard: ${result.guardPassed ? 'passed' : 'FAILED'}${result.warnings.length ? ` — ${result.warnings.map((warning) => `[${warning.severity}] ${warning.message}`).join('; ')}` : ''}`);
  lines.push(
    `timings (ms): ${(['cache', 'analyze', 'retrieve', 'filter', 'rank', 'compose', 'guard', 'total'] as const).map((stage) => `${stage} ${timings[stage].toFixed(2)}`).join(', ')}`,
  );
  return lines.join('\n');
}
