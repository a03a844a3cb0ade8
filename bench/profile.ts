import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

// Summarises a V8 CPU profile (`node --cpu-prof`) into where the busy time went: by package (or file
// of this repository), by function (self time), and the inclusive time of this repository's own
// functions. Usage: npx tsx bench/profile.ts path/to/file.cpuprofile [--top N]

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const ROOT = resolve(__dirname, '..');
const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

export function bucketOf(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return '(native / V8 builtins)';
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith(ROOT)) return `gather: ${relative(ROOT, url)}`;
  return url;
}

const label = (frame: CallFrame) => {
  const url = frame.url.replace(/^file:\/\//, '');
  const where = url.startsWith(ROOT)
    ? relative(ROOT, url)
    : url.includes('/node_modules/')
      ? url.slice(url.lastIndexOf('/node_modules/') + 14)
      : url;
  return `${frame.functionName || '(anonymous)'} ${where ? `${where}:${frame.lineNumber + 1}` : ''}`.trim();
};

export function summarise(path: string, top = 25): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Samples under bench/servers/child.ts are the profiler being stopped (serialising the profile), not
  // the server's work: they are left out.
  const ownOverhead = new Map<number, boolean>();
  const isOverhead = (leaf: number): boolean => {
    const known = ownOverhead.get(leaf);
    if (known !== undefined) return known;
    let found = false;
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      if (byId.get(id)!.callFrame.url.endsWith('/bench/servers/child.ts')) {
        found = true;
        break;
      }
    }
    ownOverhead.set(leaf, found);
    return found;
  };
  const kept = profile.samples
    .map((id, i) => ({ id, us: profile.timeDeltas[i] ?? 0 }))
    .filter((s) => !isOverhead(s.id));
  const self = new Map<number, number>();
  for (const { id, us } of kept) self.set(id, (self.get(id) ?? 0) + us);

  let total = 0;
  let idle = 0;
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const bucket = bucketOf(frame);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
    const key = label(frame);
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  const busy = total - idle;

  // The same, with time in V8 builtins, native code and Node's internals charged to the nearest calling
  // package or file (a socket write made by pg counts for pg).
  const charged = new Map<string, number>();
  const generic = (bucket: string) => bucket === '(native / V8 builtins)' || bucket.startsWith('node:');
  for (const { id: leaf, us } of kept) {
    const leafFrame = byId.get(leaf)!.callFrame;
    if (leafFrame.functionName === '(idle)') continue;
    let bucket = bucketOf(leafFrame);
    if (generic(bucket)) {
      for (let id = parent.get(leaf); id !== undefined; id = parent.get(id)) {
        const candidate = bucketOf(byId.get(id)!.callFrame);
        if (!generic(candidate) && !SPECIAL.has(candidate)) {
          bucket = candidate;
          break;
        }
      }
    }
    charged.set(bucket, (charged.get(bucket) ?? 0) + us);
  }

  // Inclusive time (the function and what it calls): each sample counts once per function on its
  // stack. Split into this repository's functions and the libraries' named functions.
  const ownInclusive = new Map<string, number>();
  const libInclusive = new Map<string, number>();
  kept.forEach(({ id: leaf, us }) => {
    const seen = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(idle)') break;
      const url = frame.url.replace(/^file:\/\//, '');
      const library = url.includes('/node_modules/');
      if (!url.startsWith(ROOT) || (library && !frame.functionName)) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      const map = library ? libInclusive : ownInclusive;
      map.set(key, (map.get(key) ?? 0) + us);
    }
  });

  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${pct(us)} ${ms(us)}  ${k}`)
      .join('\n');
  return [
    `profile ${relative(process.cwd(), path)}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((busy / total) * 100).toFixed(0)}%); "writev"/"writeBuffer" are socket writes (on loopback they include the kernel's TCP work for the receiver)`,
    `self time by package or file (% of busy time):`,
    rows(buckets, top),
    `the same, with native, builtin and node: time charged to the calling package or file:`,
    rows(charged, top),
    `self time by function:`,
    rows(functions, top),
    `inclusive time of this repository's functions:`,
    rows(ownInclusive, top),
    `inclusive time of library functions:`,
    rows(libInclusive, top),
  ].join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const topIndex = args.indexOf('--top');
  const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
  const files = args.filter((a, i) => a !== '--top' && i !== topIndex + 1 && a.endsWith('.cpuprofile'));
  if (files.length === 0) {
    process.stderr.write('usage: npx tsx bench/profile.ts FILE.cpuprofile [--top N]\n');
    process.exit(2);
  }
  for (const file of files) process.stdout.write(`${summarise(file, top)}\n\n`);
}
