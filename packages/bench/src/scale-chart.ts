import type { ScaleResult } from './jobs.js';

/** One line of a panel. */
interface Series {
  name: string;
  color: string;
  points: Array<{ x: number; y: number }>;
}

const COLORS: Record<string, string> = { keyword: '#1f77b4', 'memory-vector': '#ff7f0e', hnsw: '#2ca02c', 'hybrid-hnsw': '#d62728' };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function niceLabel(value: number): string {
  if (value >= 1_000_000) return `${+(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1_000) return `${+(value / 1_000).toFixed(1)}k`;
  if (value >= 1) return `${+value.toFixed(1)}`;
  return `${+value.toPrecision(2)}`;
}

/** Powers of ten covering [minimum, maximum] (at least one decade). */
function decades(minimum: number, maximum: number): number[] {
  const low = Math.floor(Math.log10(minimum));
  const high = Math.max(low + 1, Math.ceil(Math.log10(maximum)));
  const ticks: number[] = [];
  for (let exponent = low; exponent <= high; exponent++) ticks.push(10 ** exponent);
  return ticks;
}

/** A log-log panel with axes, decade grid lines, one polyline per series and a title. */
function panel(series: readonly Series[], options: { x: number; y: number; width: number; height: number; title: string; yLabel: string; reference?: { y: number; label: string } }): string {
  const all = series.flatMap((line) => line.points).filter((point) => point.x > 0 && point.y > 0);
  if (options.reference) all.push({ x: all[0]?.x ?? 1, y: options.reference.y });
  if (all.length === 0) return '';
  const xTicks = decades(Math.min(...all.map((point) => point.x)), Math.max(...all.map((point) => point.x)));
  const yTicks = decades(Math.min(...all.map((point) => point.y)), Math.max(...all.map((point) => point.y)));
  const left = options.x + 60;
  const right = options.x + options.width - 10;
  const top = options.y + 30;
  const bottom = options.y + options.height - 40;
  const xOf = (value: number): number => left + ((Math.log10(value) - Math.log10(xTicks[0]!)) / (Math.log10(xTicks.at(-1)!) - Math.log10(xTicks[0]!))) * (right - left);
  const yOf = (value: number): number => bottom - ((Math.log10(value) - Math.log10(yTicks[0]!)) / (Math.log10(yTicks.at(-1)!) - Math.log10(yTicks[0]!))) * (bottom - top);
  const parts: string[] = [];
  parts.push(`<text x="${(left + right) / 2}" y="${options.y + 18}" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`);
  for (const tick of xTicks) {
    const x = xOf(tick).toFixed(1);
    parts.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="#ddd"/>`, `<text x="${x}" y="${bottom + 16}" text-anchor="middle" font-size="11">${niceLabel(tick)}</text>`);
  }
  for (const tick of yTicks) {
    const y = yOf(tick).toFixed(1);
    parts.push(`<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="#ddd"/>`, `<text x="${left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" font-size="11">${niceLabel(tick)}</text>`);
  }
  parts.push(`<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="#333"/>`);
  parts.push(`<text x="${(left + right) / 2}" y="${bottom + 34}" text-anchor="middle" font-size="12">chunks in the corpus (log scale)</text>`);
  parts.push(`<text transform="translate(${options.x + 16},${(top + bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(options.yLabel)}</text>`);
  if (options.reference) {
    const y = yOf(options.reference.y).toFixed(1);
    parts.push(`<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="#888" stroke-dasharray="6,4"/>`, `<text x="${right - 4}" y="${Number(y) - 5}" text-anchor="end" font-size="11" fill="#555">${escapeXml(options.reference.label)}</text>`);
  }
  for (const line of series) {
    const points = line.points.filter((point) => point.x > 0 && point.y > 0);
    if (points.length === 0) continue;
    parts.push(`<polyline fill="none" stroke="${line.color}" stroke-width="2" points="${points.map((point) => `${xOf(point.x).toFixed(1)},${yOf(point.y).toFixed(1)}`).join(' ')}"/>`);
    for (const point of points) parts.push(`<circle cx="${xOf(point.x).toFixed(1)}" cy="${yOf(point.y).toFixed(1)}" r="3.5" fill="${line.color}"/>`);
  }
  return parts.join('\n');
}

/**
 * An SVG (no chart library) with two log-log panels: run() p50 latency and index memory per chunk
 * against corpus size, one line per retriever configuration. Returns '' when nothing succeeded.
 */
export function renderScaleChart(rows: readonly ScaleResult[], title = 'zerda ContextEngine.run() at scale'): string {
  const ok = rows.filter((row) => row.status === 'ok' && row.run && row.build);
  if (ok.length === 0) return '';
  const configurations = [...new Set(ok.map((row) => row.configuration))];
  const seriesOf = (value: (row: ScaleResult) => number): Series[] =>
    configurations.map((configuration) => ({
      name: configuration,
      color: COLORS[configuration] ?? '#555',
      points: ok.filter((row) => row.configuration === configuration).sort((a, b) => a.size - b.size).map((row) => ({ x: row.size, y: value(row) })),
    }));
  const width = 960;
  const height = 420;
  const latency = panel(seriesOf((row) => row.run!.p50Ms), { x: 0, y: 30, width: width / 2, height: height - 60, title: 'run() p50 latency', yLabel: 'milliseconds (log scale)', reference: { y: 10, label: 'target at 100k: 10 ms (hybrid-hnsw)' } });
  const memory = panel(seriesOf((row) => row.build!.retainedBytes / row.size), { x: width / 2, y: 30, width: width / 2, height: height - 60, title: 'index memory per chunk', yLabel: 'bytes per chunk (log scale)' });
  const legend = configurations
    .map((configuration, index) => {
      const x = 80 + index * 200;
      return `<rect x="${x}" y="${height - 22}" width="14" height="14" fill="${COLORS[configuration] ?? '#555'}"/><text x="${x + 20}" y="${height - 10}" font-size="12">${escapeXml(configuration)}</text>`;
    })
    .join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="16" font-weight="bold">${escapeXml(title)}</text>`,
    latency,
    memory,
    legend,
    '</svg>',
    '',
  ].join('\n');
}
