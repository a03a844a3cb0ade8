import { setFlagsFromString } from 'node:v8';

const YOUNG_BUFFER_FLAG = '--scavenger-max-new-space-capacity-mb';
/** Node 22's value (V8 12.4): the young collection for buffers comes at 32 MB of them. */
const NODE_22_NEW_SPACE_MB = 8;
const HEAP_GROWING_FLAG = '--heap-growing-percent';
/** The old generation is collected once it is 1.5 times what the last full collection kept. */
const HEAP_GROWING_PERCENT = 50;
const PRETENURING_FLAG = '--allocation-site-pretenuring';

/** Whether the process was started with this V8 flag (`node --flag=N`, or in NODE_OPTIONS): then it is kept. */
function given(flag: string): boolean {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return args.some((arg) =>
    arg
      .replaceAll('_', '-')
      .replace(/^--no-/, '--')
      .startsWith(flag),
  );
}

/**
 * The V8 settings the service runs with. Set when this module is first imported, which src/app.ts
 * does before anything else: the old generation's next limit is computed at each full collection,
 * and loading the service's modules takes several, so a setting made after them would wait for the
 * first collection under load (the first list run peaked at 327 MB that way).
 */
function tuneRuntime(): void {
  freeStreamedBuffersYoung();
  boundHeapGrowth();
  keepAllocationsYoung();
}

/**
 * Has V8 free the buffers of streamed bytes as Node 20 and 22 did. Every chunk a file upload or
 * download moves is a fresh buffer (the HTTP parser's copy of a socket read, an fs read) that dies
 * young. V8 frees young buffers with a young-generation collection once they pass twice the largest
 * semispace (`Heap::AllocateExternalBackingStore`): 32 MB on Node 20 and 22, but Node 24's V8 13.6
 * quadrupled the new space (this flag's default 8 → 32), so the trigger moved to 128 MB. Long before
 * that, 64 MB of external memory starts an incremental mark-compact, and while it marks (about 100 ms
 * in a busy process) the young collection is held back, so dead buffers piled up to 64-110 MB while
 * 200 MB streamed up and down, against 33 MB on Node 20. V8 reads the flag at each buffer allocation,
 * so setting it here, before any request, takes effect; the new space's own size was fixed at start
 * and stays. Node 20's V8 has no such flag and Node 22's is 8 already; one given on the command line
 * (`node --scavenger-max-new-space-capacity-mb=N`) is kept.
 */
function freeStreamedBuffersYoung(): void {
  const v8Major = Number(process.versions.v8.split('.')[0]);
  if (v8Major < 13 || given(YOUNG_BUFFER_FLAG)) return;
  setFlagsFromString(`${YOUNG_BUFFER_FLAG}=${NODE_22_NEW_SPACE_MB}`);
}

/**
 * Keeps the old generation near what is alive. A request's records, loaders and result tree live as
 * long as its statements take, so under load they outlast two young collections and are promoted (or
 * allocated old at once, once V8 pretenures their allocation sites): the list load promoted about
 * 200 KB per request, all dead by the next full collection, which kept 68-80 MB. V8 schedules that
 * collection at up to 4 times what the last one kept when collecting is fast next to allocating, so
 * the old space swung between 80 and 310 MB and the RSS reached 450 MB (bare Fastify + pg: 187).
 * Growing by 50% at most, the full collection comes after about 40 MB promoted: the RSS stayed at
 * 230-250 MB under the same load. The price is collection work: on a quiet two-core machine the list
 * load cost 2.83 ms of CPU per request against 2.26 with V8's factor (its marking threads compete with
 * PostgreSQL; bench/README.md, "Memory"). The heap is not capped: it still grows
 * to whatever stays alive. V8 reads the flag each time it sets the next limit, so setting it here
 * takes effect; one given on the command line is kept (`node --heap-growing-percent=0` restores V8's
 * own choice, for throughput over memory).
 */
function boundHeapGrowth(): void {
  if (given(HEAP_GROWING_FLAG)) return;
  setFlagsFromString(`${HEAP_GROWING_FLAG}=${HEAP_GROWING_PERCENT}`);
}

/**
 * Turns off V8's allocation-site pretenuring: every object starts young. V8 counts, per literal in the
 * code (an allocation site), how many of its objects survive a young collection; a site seen at 85% or
 * more while the young generation is at its largest is "tenured": optimized code allocates its objects
 * in the old generation from then on, and V8 goes back on that only after a full collection that frees
 * nine tenths of the old generation, which never happens here. One such site is pg's result array
 * (`this.rows = []` in its `Result`), tenured early in the first writes a process serves (slow
 * transactions, code not yet optimized): from then on every statement's `rows` array was born old (for
 * 92% of the statements of 500 creates and 100 PATCHes, and all those of the list after them). Each row pushed into it is young and referenced from the old generation, so it survives
 * the next young collection whether used or not, and is promoted with its strings: after 500 creates
 * and 100 PATCHes each scavenge of the list load promoted 1.3 MB against 0.34 MB in a process that had
 * served only lists, and the list's collection time per request doubled (its p99 with it). Heavy
 * load does the same to a process that only ever served lists. With every object young the same
 * process promoted 0.36-0.38 MB per scavenge (bench/README.md, "As users compare them"). What
 * pretenuring saves, copying objects that do live long once or twice before they reach the old
 * generation, does not arise in a service whose long-lived data is built at start. One given on the
 * command line (`node --allocation-site-pretenuring`) is kept.
 */
function keepAllocationsYoung(): void {
  if (given(PRETENURING_FLAG)) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}

tuneRuntime();
