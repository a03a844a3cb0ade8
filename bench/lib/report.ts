import { execSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import type { RunFigures } from './load';

export type Figures = { rps: number; p50_ms: number; p99_ms: number; rss_mb: number; cpu_pct: number; cpu_ms_per_req: number };

export type ScenarioResult = {
  name: string;
  ours: Figures | Record<string, number>;
  baseline: (Figures & { name: string }) | null;
  ratio: number | null;
  /**
   * The same comparison in CPU time per request (baseline ÷ ours): how much work each side spends on a
   * request, which other processes on the machine disturb less than throughput. Informative; `met`
   * follows `ratio`.
   */
  cpu_ratio?: number | null;
  target: number | 'constant';
  met: boolean;
  /** Per round, for the ratio scenarios: requests per second of each side. */
  rounds?: { ours_rps: number; baseline_rps: number }[];
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
      return execSync(command, { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
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

const num = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const targetText = (s: ScenarioResult) => (s.target === 'constant' ? 'constant' : s.target >= 1 ? `>= ${s.target}x` : `>= ${Math.round(s.target * 100)}%`);
const cpuRatioText = (s: ScenarioResult) =>
  s.cpu_ratio == null || Number.isNaN(s.cpu_ratio) ? '-' : s.target !== 'constant' && s.target >= 1 ? `${s.cpu_ratio.toFixed(2)}x` : `${(s.cpu_ratio * 100).toFixed(0)}%`;
const ratioText = (s: ScenarioResult) => (s.ratio === null ? '-' : s.target !== 'constant' && s.target >= 1 ? `${s.ratio.toFixed(2)}x` : `${(s.ratio * 100).toFixed(0)}%`);

/** The table printed at the end of a run (plain text, aligned). */
export function textTable(scenarios: ScenarioResult[]): string {
  const header = ['#', 'scenario', 'ours req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'baseline', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target', 'met', 'CPU/req ratio'];
  const rows = scenarios.map((s, i) => {
    if (s.baseline === null) {
      const counts = Object.entries(s.ours).map(([k, v]) => `${k.replace('first_', 'n=')}: ${v}`).join(', ');
      return [String(i + 1), s.name, counts, '', '', '', '', '', '', '', '-', targetText(s), s.met ? 'yes' : 'NO', ''];
    }
    const o = s.ours as Figures;
    return [String(i + 1), s.name, num(o.rps), num(o.p50_ms, 1), num(o.p99_ms, 1), num(o.rss_mb), s.baseline.name.replace(/ \(.*\)$/, ''), num(s.baseline.rps), num(s.baseline.p50_ms, 1), num(s.baseline.p99_ms, 1), ratioText(s), targetText(s), s.met ? 'yes' : 'NO', cpuRatioText(s)];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] === undefined ? 0 : r[c].length))));
  const line = (cells: string[]) => cells.map((cell, c) => (c === 1 || c === 6 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The same table in Markdown, for bench/README.md. */
export function markdownTable(scenarios: ScenarioResult[]): string {
  const lines = [
    '| # | scenario | ours req/s | p50 ms | p99 ms | RSS MB | baseline | req/s | p50 ms | p99 ms | ratio | target | met | CPU/req ratio |',
    '|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|---:|',
  ];
  scenarios.forEach((s, i) => {
    if (s.baseline === null) {
      const counts = Object.entries(s.ours).map(([k, v]) => `${k.replace('first_', 'n=')}: ${v}`).join(', ');
      lines.push(`| ${i + 1} | ${s.name} | ${counts} | | | | — | | | | — | ${targetText(s)} | ${s.met ? 'yes' : '**no**'} | |`);
      return;
    }
    const o = s.ours as Figures;
    lines.push(
      `| ${i + 1} | ${s.name} | ${num(o.rps)} | ${num(o.p50_ms, 1)} | ${num(o.p99_ms, 1)} | ${num(o.rss_mb)} | ${s.baseline.name} | ${num(s.baseline.rps)} | ${num(s.baseline.p50_ms, 1)} | ${num(s.baseline.p99_ms, 1)} | ${ratioText(s)} | ${targetText(s)} | ${s.met ? 'yes' : '**no**'} | ${cpuRatioText(s)} |`,
    );
  });
  return lines.join('\n');
}

export function progressLine(figures: RunFigures): string {
  return `${num(figures.rps).padStart(7)} req/s  p50 ${num(figures.p50_ms, 1).padStart(6)} ms  p99 ${num(figures.p99_ms, 1).padStart(6)} ms  RSS ${num(figures.rss_mb).padStart(4)} MB  CPU ${num(figures.cpu_pct).padStart(3)}% (${num(figures.cpu_ms_per_req, 2)} ms/req)${figures.failures ? `  FAILURES ${figures.failures}` : ''}`;
}
