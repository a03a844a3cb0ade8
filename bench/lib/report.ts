import { execSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import type { RunFigures } from './load';

export type Figures = {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  rss_mb: number;
  cpu_pct: number;
  cpu_ms_per_req: number;
};

/**
 * The figures of the event and file scenarios: `rps` is their rate in `unit` (events/s, MB/s), or null
 * for the fan-out, which reports latency only; anything else they measured rides along.
 */
export type OtherFigures = {
  rps: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  rss_mb: number | null;
  [more: string]: unknown;
};

/**
 * A throughput ratio to reach (0.5 = 50% of the baseline, 2 = 2x), 'constant' (statement counts), the
 * least p99 ratio (baseline ÷ ours: the fan-out), the most p99 in milliseconds (an absolute latency:
 * commit to webhook delivery), or null: reported beside its baseline, no target.
 */
export type Target = number | 'constant' | { p99_ratio_min: number } | { p99_ms_max: number } | null;

export type ScenarioResult = {
  name: string;
  ours: Figures | OtherFigures | Record<string, number>;
  baseline: ((Figures | OtherFigures) & { name: string }) | null;
  /**
   * ours ÷ baseline in throughput; for the fan-out (`ratio_of: 'p99_latency'`), baseline p99 ÷ ours
   * p99; for memory (`'rss'`), baseline RSS ÷ ours: in all, 1 is as good as the baseline and smaller is worse.
   */
  ratio: number | null;
  ratio_of?: 'throughput' | 'p99_latency' | 'p50_latency' | 'rss';
  /** What `rps` counts, when not requests (events/s, MB/s). */
  unit?: string;
  /**
   * The same comparison in CPU time per request (baseline ÷ ours): how much work each side spends on a
   * request, which other processes on the machine disturb less than throughput. Informative; `met`
   * follows `ratio`.
   */
  cpu_ratio?: number | null;
  target: Target;
  /** null when the scenario has no target (reported for comparison only). */
  met: boolean | null;
  /** Per round, for the ratio scenarios: requests per second of each side. */
  rounds?: { ours_rps: number; baseline_rps: number }[];
  /** Per round, the 1-minute load average when each side's measured run started (ours, baseline). */
  load_average_1m?: number[][];
  note?: string;
};

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Medians over the rounds of one contender. */
export function summarise(runs: RunFigures[]): Figures {
  return {
    rps: round(median(runs.map((r) => r.rps)), 1),
    p50_ms: round(median(runs.map((r) => r.p50_ms))),
    p99_ms: round(median(runs.map((r) => r.p99_ms))),
    rss_mb: round(median(runs.map((r) => r.rss_mb)), 1),
    cpu_pct: round(median(runs.map((r) => r.cpu_pct)), 0),
    cpu_ms_per_req: round(median(runs.map((r) => r.cpu_ms_per_req))),
  };
}

export function machine(extra: Record<string, unknown>): Record<string, unknown> {
  const git = (command: string) => {
    try {
      return execSync(command, { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      return null;
    }
  };
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gb: round(totalmem() / 1024 ** 3, 1),
    os: `${osType()} ${release()}`,
    node: process.version,
    commit: git('git rev-parse --short HEAD'),
    dirty: git('git status --porcelain') ? true : false,
    date: new Date().toISOString(),
    /** 1-minute load average when the report was written: above the core count, something else competed for the CPU. */
    load_average_1m: round(loadavg()[0], 2),
    ...extra,
  };
}

const num = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const opt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || Number.isNaN(n) ? '-' : num(n, digits);
const isRatioTarget = (t: Target): t is number => typeof t === 'number';
export const targetText = (s: ScenarioResult) =>
  s.target === null
    ? '-'
    : s.target === 'constant'
      ? 'constant'
      : isRatioTarget(s.target)
        ? s.target >= 1
          ? `>= ${s.target}x`
          : `>= ${Math.round(s.target * 100)}%`
        : 'p99_ms_max' in s.target
          ? `p99 < ${s.target.p99_ms_max} ms`
          : `p99 >= ${Math.round(s.target.p99_ratio_min * 100)}% (within ${Math.round(100 / s.target.p99_ratio_min) / 100}x)`;
const asTimes = (s: ScenarioResult) => isRatioTarget(s.target) && s.target >= 1;
const cpuRatioText = (s: ScenarioResult) =>
  s.cpu_ratio == null || Number.isNaN(s.cpu_ratio)
    ? '-'
    : asTimes(s)
      ? `${s.cpu_ratio.toFixed(2)}x`
      : `${(s.cpu_ratio * 100).toFixed(0)}%`;
const ratioText = (s: ScenarioResult) =>
  s.ratio === null
    ? '-'
    : asTimes(s)
      ? `${s.ratio.toFixed(2)}x`
      : `${(s.ratio * 100).toFixed(s.ratio < 0.1 ? 1 : 0)}%${s.ratio_of === 'p99_latency' ? ' (p99)' : s.ratio_of === 'p50_latency' ? ' (p50)' : s.ratio_of === 'rss' ? ' (RSS)' : ''}`;
const metText = (s: ScenarioResult, no: string) => (s.met === null ? '-' : s.met ? 'yes' : no);
const rate = (f: { rps: number | null }, unit?: string) =>
  f.rps === null ? '-' : `${num(f.rps, f.rps < 10 ? 1 : 0)}${unit ? ` ${unit}` : ''}`;
const counts = (s: ScenarioResult) =>
  Object.entries(s.ours)
    .map(([k, v]) => `${k.replace('first_', 'n=')}: ${v}`)
    .join(', ');

type Row = { cells: string[] };
const HEADER = [
  '#',
  'scenario',
  'ours /s',
  'p50 ms',
  'p99 ms',
  'RSS MB',
  'baseline',
  '/s',
  'p50 ms',
  'p99 ms',
  'ratio',
  'target',
  'met',
  'CPU/req ratio',
];

function rows(scenarios: ScenarioResult[], no: string, short: boolean): Row[] {
  return scenarios.map((s, i) => {
    if (s.baseline === null)
      return {
        cells: [String(i + 1), s.name, counts(s), '', '', '', '', '', '', '', '-', targetText(s), metText(s, no), ''],
      };
    const o = s.ours as OtherFigures;
    const b = s.baseline;
    const unit = s.unit ?? 'req/s';
    return {
      cells: [
        String(i + 1),
        s.name,
        rate(o, short ? undefined : unit === 'req/s' ? undefined : unit),
        opt(o.p50_ms, 1),
        opt(o.p99_ms, 1),
        opt(o.rss_mb),
        short ? b.name.replace(/ \(.*\)$/, '') : b.name,
        rate(b, short ? undefined : unit === 'req/s' ? undefined : unit),
        opt(b.p50_ms, 1),
        opt(b.p99_ms, 1),
        ratioText(s),
        targetText(s),
        metText(s, no),
        cpuRatioText(s),
      ],
    };
  });
}

/** The table printed at the end of a run (plain text, aligned). */
export function textTable(scenarios: ScenarioResult[]): string {
  const body = rows(scenarios, 'NO', true).map((r) => r.cells);
  const widths = HEADER.map((h, c) => Math.max(h.length, ...body.map((r) => (r[c] === undefined ? 0 : r[c].length))));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 1 || c === 6 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The same table in Markdown, for bench/README.md (rates carry their unit when not req/s). */
export function markdownTable(scenarios: ScenarioResult[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, '|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|---:|'];
  for (const { cells } of rows(scenarios, '**no**', false))
    lines.push(`| ${cells.map((c) => (c === '' ? ' ' : c === '-' ? '—' : c)).join(' | ')} |`);
  return lines.join('\n');
}

export function progressLine(figures: RunFigures): string {
  return `${num(figures.rps).padStart(7)} req/s  p50 ${num(figures.p50_ms, 1).padStart(6)} ms  p99 ${num(figures.p99_ms, 1).padStart(6)} ms  RSS ${num(figures.rss_mb).padStart(4)} MB  CPU ${num(figures.cpu_pct).padStart(3)}% (${num(figures.cpu_ms_per_req, 2)} ms/req)${figures.failures ? `  FAILURES ${figures.failures}` : ''}`;
}

/** Nearest-rank percentile (p in 0..100): of 20 samples, p99 is the largest and p50 the 10th. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round2 = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
