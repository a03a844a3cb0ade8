import { setFlagsFromString } from 'node:v8';

const YOUNG_BUFFER_FLAG = '--scavenger-max-new-space-capacity-mb';
/** Node 22's value (V8 12.4): the young collection for buffers comes at 32 MB of them. */
const NODE_22_NEW_SPACE_MB = 8;
const HEAP_GROWING_FLAG = '--heap-growing-percent';
/** The old generation is collected once it is 1.5 times what the last full collection kept. */
const HEAP_GROWING_PERCENT = 50;

/** Whether the process was started with this V8 flag (`node --flag=N`, or in NODE_OPTIONS): then it is kept. */
function given(flag: string): boolean {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return args.some((arg) => arg.replaceAll('_', '-').startsWith(flag));
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
 * PostgreSQL; bench/README.md, "Memory under the list load"). The heap is not capped: it still grows
 * to whatever stays alive. V8 reads the flag each time it sets the next limit, so setting it here
 * takes effect; one given on the command line is kept (`node --heap-growing-percent=0` restores V8's
 * own choice, for throughput over memory).
 */
function boundHeapGrowth(): void {
  if (given(HEAP_GROWING_FLAG)) return;
  setFlagsFromString(`${HEAP_GROWING_FLAG}=${HEAP_GROWING_PERCENT}`);
}

tuneRuntime();
