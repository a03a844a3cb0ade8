// File throughput is now a group of the benchmark suite (bench/lib/file-throughput.ts): upload and
// download of the service as a ratio to raw disk write and read, measured in the same run. This file
// stays as a shortcut: `npx tsx bench/files.ts [options]` = `npm run bench -- --only files [options]`
// (e.g. --file-mb 256 --file-rounds 3; BENCH_FILE_MB is still read as the size).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const extra = process.argv.slice(2);
const size = process.env.BENCH_FILE_MB && !extra.includes('--file-mb') ? ['--file-mb', process.env.BENCH_FILE_MB] : [];
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', join(__dirname, 'run.ts'), '--only', 'files', ...size, ...extra],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
