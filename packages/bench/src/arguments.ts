import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SECTIONS, benchmarkPreset, type BenchmarkOptions, type Section } from './benchmark.js';
import { VECTOR_BACKENDS, type ScaleConfiguration, type VectorBackend } from './jobs.js';
import { repositoryRoot } from './paths.js';
import { SYSTEM_IDS, type SystemId } from './systems/registry.js';

export const USAGE = `zerda benchmarks — quality and speed against MiniSearch, Orama, wink-bm25 and LangChain.js

usage: node dist/cli.js [--quick] [options]     (pnpm bench, pnpm bench:quick)

  --quick                  the quick variant (slices, small scale sizes; a few minutes)
  --sections LIST          any of ${SECTIONS.join(',')} (default: all)
  --datasets LIST          dataset folder names (default: every folder in the BEIR layout)
  --systems LIST           any of ${SYSTEM_IDS.join(',')}
  --docs N                 at most N documents per dataset (judged documents kept first)
  --queries N              at most N queries per dataset
  --scale-sizes LIST       corpus sizes of the scale section, e.g. 10000,100000,1000000
  --scale-configurations LIST  any of keyword,memory-vector,hnsw,hybrid-hnsw
  --vector-sizes LIST      sizes of the vector-backend section, e.g. 10000,100000
  --vector-backends LIST   any of ${VECTOR_BACKENDS.join(',')}
  --scale-queries N        queries per scale configuration (full 200, quick 50)
  --vector-queries N       queries per vector backend (full 200, quick 50)
  --token-queries N        queries of the token-budget rows (full 300, quick 50)
  --warmup N               untimed queries before each timed series (full 20, quick 5)
  --out FILE               the Markdown report (default <repo>/BENCHMARKS.md)
  --results DIR            JSON results and the chart (default <repo>/bench-results)
  --no-isolate             run every system in this process (no clean memory figures)
  --render FILE            write the report again from a results.json (no measuring)
  --merge FILE             with --render: take the sections that results.json ran from it (a full run split in two)
  --merge-sections LIST    with --merge: only these of its sections
  --compare                compare <results>/results.json with the committed one (pnpm bench:compare):
                           per row, ratios within the run, quality and memory, and their change
  --baseline FILE          the results.json to compare with (default: bench-results/results.json at git HEAD)
  --help

Datasets come from $ZERDA_DATASETS or ../shared/datasets; nothing is copied into the repository.`;

/** Parsed command line: the benchmark options and where to write. */
export interface CommandLine {
  help: boolean;
  /** A results.json to render again instead of measuring. */
  render?: string;
  /** With `render`: a second results.json whose sections replace those of the first. */
  merge?: string;
  /** With `merge`: only these of its sections. */
  mergeSections?: Section[];
  /** Compare the results file with a baseline instead of measuring. */
  compare?: { current: string; baseline?: string };
  options: BenchmarkOptions;
  markdownPath: string;
  resultsDirectory: string;
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean);
}

function oneOf<T extends string>(values: string[] | undefined, allowed: readonly T[], flag: string): T[] | undefined {
  if (!values) return undefined;
  for (const value of values) if (!allowed.includes(value as T)) throw new Error(`${flag}: unknown value "${value}" (expected any of ${allowed.join(', ')})`);
  return values as T[];
}

function positiveIntegers(values: string[] | undefined, flag: string): number[] | undefined {
  if (!values) return undefined;
  return values.map((value) => {
    const number = Number(value.replace(/_/g, ''));
    if (!Number.isInteger(number) || number < 1) throw new Error(`${flag}: expected positive integers, got "${value}"`);
    return number;
  });
}

/** Turns `process.argv.slice(2)` into options (the full or quick preset, then the overrides). */
export function parseArguments(argv: readonly string[]): CommandLine {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      sections: { type: 'string' },
      datasets: { type: 'string' },
      systems: { type: 'string' },
      docs: { type: 'string' },
      queries: { type: 'string' },
      'scale-sizes': { type: 'string' },
      'scale-configurations': { type: 'string' },
      'vector-sizes': { type: 'string' },
      'vector-backends': { type: 'string' },
      'scale-queries': { type: 'string' },
      'vector-queries': { type: 'string' },
      'token-queries': { type: 'string' },
      warmup: { type: 'string' },
      out: { type: 'string' },
      results: { type: 'string' },
      'no-isolate': { type: 'boolean', default: false },
      render: { type: 'string' },
      merge: { type: 'string' },
      'merge-sections': { type: 'string' },
      compare: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.merge && !values.render) throw new Error('--merge: only with --render FILE (it merges a second results.json into the one rendered)');
  if (values['merge-sections'] && !values.merge) throw new Error('--merge-sections: only with --merge FILE');
  const options = benchmarkPreset(values.quick ? 'quick' : 'full');
  const root = repositoryRoot();
  const custom = Object.keys(values).some((key) => !['quick', 'out', 'results', 'help', 'render', 'merge', 'merge-sections', 'compare', 'baseline'].includes(key) && (values as Record<string, unknown>)[key] !== undefined && (values as Record<string, unknown>)[key] !== false);
  if (custom) options.variant = 'custom';
  options.sections = oneOf(list(values.sections), SECTIONS, '--sections') ?? options.sections;
  const datasets = list(values.datasets);
  if (datasets) options.datasets = datasets;
  options.systems = oneOf<SystemId>(list(values.systems), SYSTEM_IDS, '--systems') ?? options.systems;
  const [docs] = positiveIntegers(list(values.docs), '--docs') ?? [];
  const [queries] = positiveIntegers(list(values.queries), '--queries') ?? [];
  if (docs !== undefined) options.slice = { ...options.slice, maxDocuments: docs };
  if (queries !== undefined) options.slice = { ...options.slice, maxQueries: queries };
  options.scaleSizes = positiveIntegers(list(values['scale-sizes']), '--scale-sizes') ?? options.scaleSizes;
  options.scaleConfigurations = oneOf<ScaleConfiguration>(list(values['scale-configurations']), ['keyword', 'memory-vector', 'hnsw', 'hybrid-hnsw'], '--scale-configurations') ?? options.scaleConfigurations;
  options.vectorSizes = positiveIntegers(list(values['vector-sizes']), '--vector-sizes') ?? options.vectorSizes;
  options.vectorBackends = oneOf<VectorBackend>(list(values['vector-backends']), VECTOR_BACKENDS, '--vector-backends') ?? options.vectorBackends;
  const single = (flag: 'scale-queries' | 'vector-queries' | 'token-queries' | 'warmup'): number | undefined => positiveIntegers(list(values[flag]), `--${flag}`)?.[0];
  options.scaleQueries = single('scale-queries') ?? options.scaleQueries;
  options.vectorQueries = single('vector-queries') ?? options.vectorQueries;
  options.tokenQueries = single('token-queries') ?? options.tokenQueries;
  options.warmup = single('warmup') ?? options.warmup;
  options.isolate = !values['no-isolate'];
  const script = process.env.npm_lifecycle_event;
  options.command = script ? `pnpm ${script}${argv.length > (values.quick ? 1 : 0) ? ` -- ${argv.filter((arg) => arg !== '--quick').join(' ')}` : ''}` : `node dist/cli.js${argv.length ? ` ${argv.join(' ')}` : ''}`;
  return {
    help: values.help ?? false,
    ...(values.render ? { render: resolve(values.render) } : {}),
    ...(values.merge ? { merge: resolve(values.merge) } : {}),
    ...(values['merge-sections'] ? { mergeSections: oneOf(list(values['merge-sections']), SECTIONS, '--merge-sections') } : {}),
    ...(values.compare ? { compare: { current: join(resolve(values.results ?? join(root, 'bench-results')), 'results.json'), ...(values.baseline ? { baseline: resolve(values.baseline) } : {}) } } : {}),
    options,
    markdownPath: resolve(values.out ?? join(root, 'BENCHMARKS.md')),
    resultsDirectory: resolve(values.results ?? join(root, 'bench-results')),
  };
}
