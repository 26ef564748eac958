import { findInjections } from '@zerda/context-core';
import { detectLanguage, splitSentences } from '@zerda/text';
import type { ContextResult, DroppedChunk, UsedChunk } from '@zerda/types';
import { INSPECTOR_CSS } from './styles.js';

/**
 * The inspector: one self-contained HTML page per `run()` result — the context exactly as the
 * model sees it, the budget gauge, every used chunk with its per-factor score bars and the sentences
 * kept or cut, every dropped candidate with its reason, stage counts and timings, guard findings.
 * Pure (no Node built-in, no network): the page inlines its styles and loads nothing, and reads
 * fully without JavaScript. It reads only the public fields of `ContextResult`.
 */

/** Options of {@link renderInspector}. */
export interface InspectorOptions {
  /** Page title (default: "zerda inspector — <query>"). */
  title?: string;
  /** Adds a query form (GET `action` with `q`) for the live server. */
  form?: { action: string; budget?: number };
  /** Where the result came from (index directory, dataset …), shown in the header. */
  origin?: string;
  /** A note shown above the report (e.g. an error of the live server), escaped. */
  notice?: string;
}

/** The ranking factors shown as bars, in order, with their labels. */
export const INSPECTOR_FACTORS = [
  ['retrieval', 'retrieval'],
  ['keywordBoost', 'keyword boost'],
  ['sourceQuality', 'source quality'],
  ['recency', 'recency'],
  ['position', 'position'],
  ['composite', 'composite'],
] as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text for element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** `rtl` for Arabic text, `auto` for mixed or unknown text (the browser decides per paragraph), `ltr` for Latin. */
export function directionOf(text: string): 'rtl' | 'ltr' | 'auto' {
  const language = detectLanguage(text);
  if (language === 'ar') return 'rtl';
  if (language === 'en') return 'ltr';
  return 'auto';
}

function attribute(name: string, value: string | number | undefined): string {
  return value === undefined ? '' : ` ${name}="${escapeHtml(String(value))}"`;
}

function number(value: number | undefined, digits = 3): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

function block(text: string, tag = 'p', className?: string): string {
  return `<${tag}${attribute('class', className)} dir="${directionOf(text)}">${escapeHtml(text)}</${tag}>`;
}

/** A kept/cut mark for one sentence of a chunk, from the composer's choice or from the kept text. */
interface SentenceView {
  text: string;
  kept: 'whole' | 'prefix' | 'none';
  reasons: string[];
  terms: string[];
  value?: number;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The sentences of a used chunk and what the context keeps of each. When the composer recorded its
 * choice (`chunk.sentences`: offsets, `kept`, `value`, `terms`, `reasons`) that is shown; otherwise
 * it is read off the kept text: a sentence is kept whole when the kept text contains it, kept as a
 * prefix when the kept text ends inside it, cut otherwise.
 */
export function sentencesOf(chunk: UsedChunk): SentenceView[] {
  const text = chunk.chunk.text;
  const recorded = (chunk as { sentences?: unknown }).sentences;
  if (Array.isArray(recorded) && recorded.every((entry) => entry && typeof entry === 'object' && typeof entry.start === 'number' && typeof entry.end === 'number')) {
    return (recorded as Array<{ start: number; end: number; kept?: unknown; reasons?: unknown; terms?: unknown; value?: unknown }>).map((entry) => ({
      text: text.slice(entry.start, entry.end),
      kept: entry.kept === 'whole' || entry.kept === 'prefix' ? entry.kept : entry.kept === true ? 'whole' : 'none',
      reasons: Array.isArray(entry.reasons) ? entry.reasons.map(String) : [],
      terms: Array.isArray(entry.terms) ? entry.terms.map(String) : [],
      ...(typeof entry.value === 'number' ? { value: entry.value } : {}),
    }));
  }
  const kept = collapse(chunk.keptText).replace(/\s*…$/, '');
  return splitSentences(text).map((sentence) => {
    const plain = collapse(sentence.text);
    if (chunk.fit === 'whole' || kept.includes(plain)) return { text: sentence.text, kept: 'whole' as const, reasons: [], terms: [] };
    // Truncation cut inside this sentence: the kept text ends with one of its prefixes.
    const words = plain.split(' ');
    for (let count = words.length - 1; count >= 1; count--) {
      if (kept.endsWith(words.slice(0, count).join(' '))) return { text: sentence.text, kept: 'prefix' as const, reasons: [], terms: [] };
    }
    return { text: sentence.text, kept: 'none' as const, reasons: [], terms: [] };
  });
}

const KEPT_LABEL = { whole: 'kept', prefix: 'cut inside', none: 'left out' } as const;

function renderSentences(chunk: UsedChunk): string {
  const sentences = sentencesOf(chunk);
  if (sentences.length === 0) return '';
  const items = sentences.map((sentence) => {
    const why = [
      ...(sentence.reasons.length ? [sentence.reasons.join(', ')] : []),
      ...(sentence.terms.length ? [`terms: ${sentence.terms.join(', ')}`] : []),
      ...(sentence.value !== undefined ? [`value ${number(sentence.value, 2)}`] : []),
    ].join(' · ');
    return `<li class="sentence ${sentence.kept}" data-kept="${sentence.kept}"><span class="mark">${KEPT_LABEL[sentence.kept]}</span> <span class="text" dir="${directionOf(sentence.text)}">${escapeHtml(sentence.text)}</span>${why ? ` <span class="why">${escapeHtml(why)}</span>` : ''}</li>`;
  });
  const keptCount = sentences.filter((sentence) => sentence.kept !== 'none').length;
  return `<details class="sentences"${chunk.fit === 'whole' ? '' : ' open'}><summary>sentences: ${keptCount} of ${sentences.length} kept</summary><ol>${items.join('')}</ol></details>`;
}

function renderBars(chunk: UsedChunk): string {
  const rows = INSPECTOR_FACTORS.map(([key, label]) => {
    const value = chunk.scores[key];
    const shown = value === undefined || !Number.isFinite(value) ? undefined : Math.min(Math.max(value, 0), 1);
    return `<tr class="factor" data-factor="${key}"${attribute('data-value', shown === undefined ? undefined : number(value))}><th scope="row">${label}</th><td class="bar-cell"><span class="bar"><span class="fill${key === 'composite' ? ' composite' : ''}" style="width:${((shown ?? 0) * 100).toFixed(1)}%"></span></span></td><td class="num">${number(value)}</td></tr>`;
  });
  const raw = (['vector', 'keyword', 'fused'] as const)
    .filter((key) => chunk.scores[key] !== undefined)
    .map((key) => `${key} ${number(chunk.scores[key])}`)
    .join(' · ');
  return `<div class="scores"><table class="factors"><caption>ranking factors (0–1)</caption><tbody>${rows.join('')}</tbody></table>${raw ? `<p class="raw">raw retrieval scores: ${escapeHtml(raw)}</p>` : ''}</div>`;
}

function pageLabel(chunk: UsedChunk): string {
  const metadata = chunk.chunk.metadata ?? {};
  const pages = Array.isArray(metadata.pages) ? metadata.pages.filter((page): page is number => typeof page === 'number') : typeof metadata.page === 'number' ? [metadata.page] : [];
  if (pages.length === 0) return '';
  return pages.length === 1 ? `, p. ${pages[0]}` : `, pp. ${pages[0]}–${pages[pages.length - 1]}`;
}

/** The kept text of a chunk; for a chunk the guard flagged, the injection phrasings are marked. */
function renderKeptText(text: string, flagged: boolean): string {
  const open = `<p class="kept-text" dir="${directionOf(text)}">`;
  if (!flagged) return `${open}${escapeHtml(text)}</p>`;
  let out = '';
  let at = 0;
  for (const span of findInjections(text)) {
    out += `${escapeHtml(text.slice(at, span.start))}<mark class="injection">${escapeHtml(text.slice(span.start, span.end))}</mark>`;
    at = span.end;
  }
  return `${open}${out}${escapeHtml(text.slice(at))}</p>`;
}

function renderChunk(chunk: UsedChunk, warnedIds: Map<string, string[]>): string {
  const warnings = warnedIds.get(chunk.chunk.id) ?? [];
  const flags = warnings.map((code) => `<span class="flag ${code === 'prompt_injection' ? 'injection' : ''}">${escapeHtml(code.replace(/_/g, ' '))}</span>`).join(' ');
  const title = chunk.chunk.title ? ` — <span dir="${directionOf(chunk.chunk.title)}">${escapeHtml(chunk.chunk.title)}</span>` : '';
  return `<article class="chunk${warnings.includes('prompt_injection') ? ' flagged' : ''}" id="chunk-${escapeHtml(chunk.chunk.id)}" data-chunk-id="${escapeHtml(chunk.chunk.id)}" data-fit="${chunk.fit}">
<header><span class="citation">${chunk.citation !== undefined ? `[${chunk.citation}]` : `#${chunk.rank}`}</span> <span class="source">${escapeHtml(chunk.chunk.source || chunk.chunk.docId)}${escapeHtml(pageLabel(chunk))}</span>${title} ${flags}
<span class="meta">rank ${chunk.rank} · ${escapeHtml((chunk.retrievers ?? []).join(' + ') || 'retrieved')} · ${chunk.fit} · ${Math.round(chunk.keptRatio * 100)}% kept · <code>${escapeHtml(chunk.chunk.id)}</code></span></header>
<div class="chunk-body">${renderBars(chunk)}<div class="passage">${renderKeptText(chunk.keptText, warnings.includes('prompt_injection'))}${renderSentences(chunk)}</div></div>
</article>`;
}

const REASONS: Record<string, string> = {
  exact_duplicate: 'exact duplicate',
  near_duplicate: 'near duplicate',
  noise: 'noise',
  too_short: 'too short',
  too_long: 'too long',
  low_score: 'score below the minimum',
  filter: 'metadata filter',
  per_document_cap: 'too many chunks of its document',
  budget: 'no room left in the budget',
};

/** A readable reason for a dropped candidate ("near duplicate of docs/a.md#2"). */
export function droppedReason(dropped: DroppedChunk): string {
  const base = REASONS[dropped.reason] ?? dropped.reason.replace(/_/g, ' ');
  return dropped.duplicateOf ? `${base} of ${dropped.duplicateOf}` : base;
}

function renderDropped(result: ContextResult): string {
  if (result.dropped.length === 0) return '<p class="empty">No candidate was dropped.</p>';
  const rows = result.dropped.map(
    (dropped) =>
      `<tr class="dropped-row" data-reason="${escapeHtml(dropped.reason)}"><td><code>${escapeHtml(dropped.chunkId)}</code></td><td class="reason">${escapeHtml(droppedReason(dropped))}</td><td dir="auto">${escapeHtml(dropped.detail ?? '')}</td></tr>`,
  );
  return `<table class="dropped"><thead><tr><th>candidate</th><th>reason</th><th>detail</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderStages(result: ContextResult): string {
  const { counts, timings } = result;
  const stages: Array<[string, number | undefined, number]> = [
    ['cache', undefined, timings.cache],
    ['analyze', undefined, timings.analyze],
    ['retrieve', counts.retrieved, timings.retrieve],
    ['filter', counts.afterFilter, timings.filter],
    ['rank', counts.afterRank, timings.rank],
    ['compose', counts.used, timings.compose],
    ['guard', undefined, timings.guard],
  ];
  const rows = stages.map(([stage, count, ms]) => `<tr data-stage="${stage}"><th scope="row">${stage}</th><td class="num count">${count ?? ''}</td><td class="num">${ms.toFixed(2)} ms</td></tr>`);
  return `<table class="stages"><thead><tr><th>stage</th><th>chunks after</th><th>time</th></tr></thead><tbody>${rows.join('')}<tr class="total"><th scope="row">total</th><td></td><td class="num">${timings.total.toFixed(2)} ms</td></tr></tbody></table>`;
}

function renderGuard(result: ContextResult): string {
  const verdict = `<p class="verdict ${result.guardPassed ? 'passed' : 'failed'}">guard ${result.guardPassed ? 'passed' : 'failed'}</p>`;
  if (result.warnings.length === 0) return `${verdict}<p class="empty">No finding.</p>`;
  const items = result.warnings.map((warning) => {
    const chunks = (warning.chunkIds ?? []).map((id) => `<a href="#chunk-${escapeHtml(id)}"><code>${escapeHtml(id)}</code></a>`).join(', ');
    return `<li class="warning ${warning.severity}${warning.code === 'prompt_injection' ? ' injection' : ''}" data-code="${escapeHtml(warning.code)}"><span class="severity">${warning.severity}</span> <code>${escapeHtml(warning.code)}</code> <span dir="auto">${escapeHtml(warning.message)}</span>${chunks ? ` — ${chunks}` : ''}</li>`;
  });
  return `${verdict}<ul class="warnings">${items.join('')}</ul>`;
}

function renderContext(result: ContextResult): string {
  if (result.context === '') return '<p class="empty">The context is empty.</p>';
  // One block per paragraph of the context, each with its own direction: an Arabic passage reads
  // right to left inside an English page and the other way round.
  const paragraphs = result.context.split(/\n{2,}/);
  return `<div class="context" data-length="${result.context.length}">${paragraphs.map((paragraph) => block(paragraph, 'p', 'context-block')).join('')}</div>`;
}

function renderGauge(result: ContextResult): string {
  const { used, limit, unit, utilization } = result.budget;
  const percent = Math.round(utilization * 100);
  return `<div class="gauge"><meter id="budget-gauge" min="0" max="${limit}" value="${Math.min(used, limit)}" high="${Math.round(limit * 0.95)}" optimum="${Math.round(limit * 0.8)}">${used} / ${limit}</meter>
<p><strong id="budget-used">${used}</strong> / <span id="budget-limit">${limit}</span> <span id="budget-unit">${escapeHtml(unit)}</span> (${percent}%)${result.truncated ? ' · truncated' : ''}</p></div>`;
}

function renderForm(query: string, form: NonNullable<InspectorOptions['form']>): string {
  return `<form class="query" method="get" action="${escapeHtml(form.action)}" role="search"><label for="q">query</label> <input id="q" name="q" type="search" dir="auto" required maxlength="2000" value="${escapeHtml(query)}" autofocus> <label for="budget">budget</label> <input id="budget" name="budget" type="number" min="1" step="1" value="${form.budget ?? ''}" placeholder="auto"> <button type="submit">run</button></form>`;
}

/**
 * Renders one result as a complete HTML document (UTF-8). Every string from the result is escaped;
 * Arabic passages get `dir="rtl"`, mixed ones `dir="auto"`.
 */
export function renderInspector(result: ContextResult | undefined, options: InspectorOptions = {}): string {
  const query = result?.query ?? '';
  const title = options.title ?? (query ? `zerda inspector — ${query}` : 'zerda inspector');
  const notice = options.notice ? `<p class="notice" role="alert" dir="auto">${escapeHtml(options.notice)}</p>` : '';
  const form = options.form ? renderForm(query, options.form) : '';
  let body = '';
  if (result) {
    const warned = new Map<string, string[]>();
    for (const warning of result.warnings) for (const id of warning.chunkIds ?? []) warned.set(id, [...(warned.get(id) ?? []), warning.code]);
    const analysis = result.analysis;
    body = `<section class="summary">
<h1 dir="${directionOf(query)}">${escapeHtml(query)}</h1>
${result.effectiveQuery !== result.query ? `<p class="effective">effective query: <span dir="auto">${escapeHtml(result.effectiveQuery)}</span></p>` : ''}
<p class="analysis">language <strong>${escapeHtml(analysis.language)}</strong> · intent ${escapeHtml(analysis.intent)} · complexity ${escapeHtml(String(analysis.complexity))} · keywords <span dir="auto">${escapeHtml(analysis.keywords.join('، ') || '–')}</span> · template ${escapeHtml(String(result.template))}${result.fromCache ? ' · from cache' : ''}</p>
${renderGauge(result)}
</section>
<section id="context"><h2>Context <small>exactly as the model sees it</small></h2>${renderContext(result)}</section>
<section id="chunks"><h2>Chunks used <small>${result.chunks.length}</small></h2>${result.chunks.length ? result.chunks.map((chunk) => renderChunk(chunk, warned)).join('\n') : '<p class="empty">No chunk made it into the context.</p>'}</section>
<section id="dropped"><h2>Dropped candidates <small>${result.dropped.length}</small></h2>${renderDropped(result)}</section>
<div class="columns"><section id="stages"><h2>Stages</h2>${renderStages(result)}</section><section id="guard"><h2>Guard</h2>${renderGuard(result)}</section></div>`;
  } else if (!options.notice) {
    body = '<p class="empty">Type a question to see the context zerda builds for it.</p>';
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'">
<meta name="generator" content="@zerda/cli inspector">
<title>${escapeHtml(title)}</title>
<style>${INSPECTOR_CSS}</style>
</head>
<body>
<header class="top"><span class="brand">zerda</span> inspector${options.origin ? ` <span class="origin">${escapeHtml(options.origin)}</span>` : ''}${form}</header>
<main>${notice}${body}</main>
</body>
</html>
`;
}
