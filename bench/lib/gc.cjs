// Collection pauses by kind, from V8's `gc` performance entries, for the bench's servers
// (servers/child.ts) and for the probe loaded into a service started by `npm start`
// (probe-preload.cjs): CommonJS, as the probe is required before any TypeScript loader runs.
const { constants } = require('node:perf_hooks');

const KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
]);

/** Calls `record(kind, ms)` for every collection from now on (`kind` undefined for weak callbacks). */
function observeGc(record) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) record(KINDS.get(entry.detail && entry.detail.kind), entry.duration);
  }).observe({ entryTypes: ['gc'] });
}

module.exports = { observeGc };
