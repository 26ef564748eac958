import { describe, expect, it } from 'vitest';
import type { BenchmarkReport } from './benchmark.js';
import { mergeReports } from './merge.js';
import { renderMarkdown } from './report.js';

function report(date: string, sections: BenchmarkReport['sectionSeconds'], rows: { scale: number; vectors: number; retrieval: number }): BenchmarkReport {
  return {
    date,
    pending: [],
    variant: 'custom',
    command: `node dist/cli.js --sections ${Object.keys(sections).join(',')}`,
    machine: { cores: 2, cpuModel: 'test', memoryBytes: 2 ** 34, node: 'v20', os: 'linux', loadAverageAtStart: 1.5 },
    durationSeconds: 60,
    sectionSeconds: sections,
    settings: { slice: {}, budgets: [2000], tokenBudgets: [], tokenQueries: 0, depth: 100, scaleQueries: 1, vectorQueries: 1, seed: 1, warmup: 0, isolate: true },
    datasets: [],
    retrieval: Array.from({ length: rows.retrieval }, () => ({ kind: 'retrieval', dataset: 'd', system: 'zerda-keyword', status: 'ok' }) as never),
    engine: [],
    naive: [],
    naiveAnswers: [],
    scale: Array.from({ length: rows.scale }, (_, size) => ({ kind: 'scale', size, configuration: 'keyword', status: 'ok' }) as never),
    vectors: Array.from({ length: rows.vectors }, () => ({ backend: 'memory' }) as never),
    targets: [],
  } as BenchmarkReport;
}

describe('mergeReports', () => {
  it('takes the sections the second run finished from it, keeps the rest, and says where they came from', () => {
    const first = report('2026-12-01T18:00:00.000Z', { retrieval: 100 }, { retrieval: 3, scale: 0, vectors: 0 });
    const second = report('2026-12-01T18:05:00.000Z', { scale: 50, vectors: 40 }, { retrieval: 0, scale: 4, vectors: 2 });
    const merged = mergeReports(first, second);
    expect(merged.retrieval).toHaveLength(3);
    expect(merged.scale).toHaveLength(4);
    expect(merged.vectors).toHaveLength(2);
    expect(merged.sectionSeconds).toEqual({ retrieval: 100, scale: 50, vectors: 40 });
    expect(merged.mergedFrom).toEqual([{ sections: ['scale', 'vectors'], date: second.date, command: second.command, durationSeconds: 60, loadAverageAtStart: 1.5 }]);
    // Rendered (rows left out: the tables have their own tests).
    const empty = { retrieval: 0, scale: 0, vectors: 0 };
    const markdown = renderMarkdown(mergeReports(report(first.date, { retrieval: 100 }, empty), report(second.date, { scale: 50, vectors: 40 }, empty)));
    expect(markdown).toContain('**Merged:** the scale, vectors sections come from another run, `node dist/cli.js --sections scale,vectors`');
    expect(markdown).toContain('Apart from the merged sections named below');
    expect(renderMarkdown(report(first.date, { retrieval: 100 }, empty))).not.toContain('Merged');
  });

  it('takes only the sections asked for', () => {
    const first = report('2026-12-01T18:00:00.000Z', { retrieval: 100, scale: 1 }, { retrieval: 3, scale: 1, vectors: 0 });
    const second = report('2026-12-01T18:05:00.000Z', { retrieval: 9, scale: 50, vectors: 40 }, { retrieval: 7, scale: 4, vectors: 2 });
    const merged = mergeReports(first, second, ['scale']);
    expect(merged.retrieval).toHaveLength(3);
    expect(merged.scale).toHaveLength(4);
    expect(merged.vectors).toHaveLength(0);
    expect(merged.mergedFrom?.[0]?.sections).toEqual(['scale']);
  });

  it('refuses a results.json that finished no section', () => {
    const first = report('2026-12-01T18:00:00.000Z', { retrieval: 100 }, { retrieval: 3, scale: 0, vectors: 0 });
    expect(() => mergeReports(first, { ...report('x', { scale: 1 }, { retrieval: 0, scale: 0, vectors: 0 }), pending: ['scale'] })).toThrow(/finished no section/);
  });
});

describe('--merge on the command line', () => {
  it('is refused without --render, and --merge-sections without --merge', async () => {
    const { parseArguments } = await import('./arguments.js');
    expect(() => parseArguments(['--merge', 'b.json'])).toThrow(/--merge: only with --render/);
    expect(() => parseArguments(['--render', 'a.json', '--merge-sections', 'scale'])).toThrow(/--merge-sections: only with --merge/);
    expect(() => parseArguments(['--render', 'a.json', '--merge', 'b.json', '--merge-sections', 'nope'])).toThrow(/--merge-sections: unknown value "nope"/);
    expect(parseArguments(['--render', 'a.json', '--merge', 'b.json', '--merge-sections', 'scale,vectors']).mergeSections).toEqual(['scale', 'vectors']);
  });
});
