#!/usr/bin/env node
// The npm registry mirror of these machines lacks the platform builds of some native packages
// (@swc/core-darwin-arm64, @unrs/resolver-binding-win32-x64-msvc, ...). `npm install` then leaves
// them out of package-lock.json, and `npm ci` refuses a lock that lacks an optional dependency.
// This adds each missing one as an entry for its own platform, which npm skips on every other.
// Run after any `npm install` that rewrote the lock: `node .ci/fix-lockfile.js`.
const fs = require('fs');
const path = require('path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

function platformOf(name) {
  const tail = name.split('/').pop();
  const os = [
    'darwin',
    'linux',
    'win32',
    'freebsd',
    'android',
    'openharmony',
    'sunos',
    'aix',
    'netbsd',
    'openbsd',
  ].find((o) => tail.includes(`-${o}-`));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'].find((c) =>
    new RegExp(`-${c}(-|$)`).test(tail),
  );
  const libc = /-musl/.test(tail) ? 'musl' : /-gnu/.test(tail) ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location ? `${location}/node_modules/${name}` : `node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[base] || packages[hoisted]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os || !cpu) continue;
    packages[hoisted] = {
      version: spec.replace(/^[\^~=]/, ''),
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os],
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} platform entr${added === 1 ? 'y' : 'ies'} the registry mirror lacks`);
