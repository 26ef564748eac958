import type { ContextResult, UsedChunk } from '@zerda/types';
import { invalidArgument } from '@zerda/types';

const FACTORS = ['retrieval', 'keywordBoost', 'sourceQuality', 'recency', 'position', 'composite'] as const;
/** Shown after the ranking factors when the engine has a reranker. */
const RERANK_FACTOR = 'rerank';

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
 * every ranking factor (and the reranker's score, when the engine has a reranker), how much of it
 * was kept and — where the composer chose sentences — every sentence with its value, whether it was
 * kept, and why (lead, query terms, neighbour of a matching sentence, answer-type cue, title), the
 * counts after each stage, guard findings and timings. Plain text (Markdown tables), suitable for
 * logs and terminals.
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
  const factors: string[] = result.reranker !== undefined || result.chunks.some((chunk) => chunk.scores.rerank !== undefined) ? [...FACTORS, RERANK_FACTOR] : [...FACTORS];
  if (result.chunks.length > 0) {
    lines.push(
      table(
        ['#', 'chunk', 'source', 'retrievers', 'fit', 'kept', ...factors],
        result.chunks.map((chunk) => [
          String(chunk.rank),
          chunk.chunk.id,
          chunk.chunk.source,
          (chunk.retrievers ?? []).join('+') || '–',
          chunk.fit,
          `${Math.round(chunk.keptRatio * 100)}%`,
          ...factors.map((factor) => cell(chunk.scores[factor])),
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
    `stages: retrieved ${counts.retrieved} → after filter ${counts.afterFilter} → after rank ${counts.afterRank}${result.reranker !== undefined ? ` → after rerank ${counts.afterRerank}` : ''} → used ${counts.used}`,
  );
  if (result.reranker !== undefined) lines.push(`reranked by ${result.reranker}: the context is ordered by its score (the rerank column)`);
  if (result.dropped.length > 0) {
    const reasons = new Map<string, number>();
    for (const dropped of result.dropped) reasons.set(dropped.reason, (reasons.get(dropped.reason) ?? 0) + 1);
    lines.push(`dropped: ${[...reasons].map(([reason, count]) => `${reason} ×${count}`).join(', ')}`);
  }
  lines.push(`guard: ${result.guardPassed ? 'passed' : 'FAILED'}${result.warnings.length ? ` — ${result.warnings.map((warning) => `[${warning.severity}] ${warning.message}`).join('; ')}` : ''}`);
  lines.push(
    `timings (ms): ${(['cache', 'analyze', 'retrieve', 'filter', 'rank', ...(result.reranker !== undefined ? (['rerank'] as const) : []), 'compose', 'guard', 'total'] as const).map((stage) => `${stage} ${(timings[stage] ?? 0).toFixed(2)}`).join(', ')}`,
  );
  return lines.join('\n');
}

/** One source of a context, JSON-safe, as tools, servers and user interfaces show it. */
export interface Citation {
  /** The passage's 1-based number in the context, when the template numbers passages. */
  number?: number;
  chunkId: string;
  docId: string;
  source: string;
  title?: string;
  /** 1-based rank after ranking (and reranking). */
  rank: number;
  /** The score the context was ordered by. */
  score: number;
  /** Every score factor of the chunk (retrieval, keywordBoost … composite, rerank). */
  scores: Record<string, number>;
  /** How the chunk was fitted to the budget. */
  fit: 'whole' | 'compressed' | 'truncated';
  /** The part of the chunk's text that is in the context. */
  text: string;
}

/**
 * The chunks of a `run()` result as citations, in context order: number, ids, source, title, rank,
 * scores and the kept text, with no `undefined` and no non-finite number (safe to send as JSON).
 */
export function citationsOf(result: ContextResult): Citation[] {
  if (!result || typeof result !== 'object' || !Array.isArray((result as ContextResult).chunks)) {
    throw invalidArgument('result', 'a ContextResult returned by run()', result);
  }
  return result.chunks.map((used) => {
    const scores: Record<string, number> = {};
    for (const [name, value] of Object.entries(used.scores)) if (typeof value === 'number' && Number.isFinite(value)) scores[name] = value;
    return {
      ...(used.citation !== undefined ? { number: used.citation } : {}),
      chunkId: used.chunk.id,
      docId: used.chunk.docId,
      source: used.chunk.source,
      ...(used.chunk.title !== undefined ? { title: used.chunk.title } : {}),
      rank: used.rank,
      score: Number.isFinite(used.score) ? used.score : 0,
      scores,
      fit: used.fit,
      text: used.keptText,
    };
  });
}

/** The part of a result a tool, a server or a user interface passes on, JSON-safe. */
export interface ContextSummary {
  /** The literal query. */
  query: string;
  context: string;
  citations: Citation[];
  budget: { limit: number; used: number; unit: string; utilization: number };
  guardPassed: boolean;
  /** The guard's findings as plain strings. */
  warnings: string[];
  fromCache: boolean;
  /** How many passages matched the query (after filtering and ranking), whether or not they fit the budget. */
  matched: number;
}

/** A result as its {@link ContextSummary}: the context, its citations, the budget, the guard's verdict. */
export function summarizeResult(result: ContextResult): ContextSummary {
  const citations = citationsOf(result);
  const { limit, used, unit, utilization } = result.budget;
  return { query: result.query, context: result.context, citations, budget: { limit, used, unit, utilization }, guardPassed: result.guardPassed, warnings: [...result.guardWarnings], fromCache: result.fromCache, matched: result.counts.afterRank };
}
