import cliProgress from 'cli-progress';
import type { CliIo } from './io.js';

/** Progress of one stage (files, chunks, embeddings …). */
export interface ProgressBar {
  setTotal(total: number): void;
  update(value: number): void;
  stop(): void;
}

/** A set of progress bars: live bars (cli-progress) on a terminal, one summary line per stage otherwise. */
export interface Progress {
  /** A bar towards `total`; without a total (a count known only at the end), a counter with its rate and no ETA. */
  bar(name: string, unit: string, total?: number): ProgressBar;
  /** A line that does not disturb the bars. */
  log(line: string): void;
  stop(): void;
}

function rateOf(value: number, started: number): string {
  const seconds = (performance.now() - started) / 1000;
  if (seconds <= 0 || value === 0) return '–';
  const rate = value / seconds;
  return rate >= 100 ? rate.toFixed(0) : rate.toFixed(1);
}

/** Progress to stderr: bars with rate and ETA on a TTY, plain lines in logs and pipes; nothing when quiet. */
export function createProgress(io: CliIo, quiet: boolean): Progress {
  if (quiet) {
    const none: ProgressBar = { setTotal() {}, update() {}, stop() {} };
    return { bar: () => none, log: () => {}, stop: () => {} };
  }
  if (!io.stderr.isTTY) {
    return {
      bar(name, unit, total = 0) {
        const started = performance.now();
        let value = 0;
        let size = total;
        let stopped = false;
        return {
          setTotal: (next) => void (size = next),
          update: (next) => void (value = next),
          stop() {
            if (stopped) return;
            stopped = true;
            io.stderr.write(`${name}: ${value}${size ? `/${size}` : ''} ${unit} in ${((performance.now() - started) / 1000).toFixed(1)} s (${rateOf(value, started)} ${unit}/s)\n`);
          },
        };
      },
      log: (line) => void io.stderr.write(`${line}\n`),
      stop: () => {},
    };
  }
  const multibar = new cliProgress.MultiBar(
    {
      stream: io.stderr as NodeJS.WriteStream,
      format: '{name} |{bar}| {value}/{total} {unit} · {rate}/s · ETA {eta_formatted}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    bar(name, unit, total) {
      const started = performance.now();
      // A count with no total yet would read "940/0 … ETA 0s": a counter shows the count and its rate.
      const format = total === undefined ? '{name} {value} {unit} · {rate}/s' : undefined;
      const bar = multibar.create(total ?? 0, 0, { name: name.padEnd(10), unit, rate: '–' }, format ? { format } : {});
      return {
        setTotal: (next) => bar.setTotal(next),
        update: (value) => bar.update(value, { rate: rateOf(value, started) }),
        stop: () => bar.stop(),
      };
    },
    log: (line) => multibar.log(`${line}\n`),
    stop: () => multibar.stop(),
  };
}
