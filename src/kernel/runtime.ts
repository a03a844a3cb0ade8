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
 * first collection under load.
 */
function tuneRuntime(): void {
  freeStreamedBuffersYoung();
  boundHeapGrowth();
  keepAllocationsYoung();
}

/**
 * Has V8 free the buffers of streamed bytes young, as on Node 20 and 22: Node 24's V8 quadrupled this
 * flag (8 → 32), so dead upload and download buffers waited far longer for a young collection
 * (docs/operations.md, "Node.js"). V8 reads it at each buffer allocation, so setting it now works.
 * Node 20's V8 has no such flag and Node 22's is 8 already; one given on the command line is kept.
 */
function freeStreamedBuffersYoung(): void {
  const v8Major = Number(process.versions.v8.split('.')[0]);
  if (v8Major < 13 || given(YOUNG_BUFFER_FLAG)) return;
  setFlagsFromString(`${YOUNG_BUFFER_FLAG}=${NODE_22_NEW_SPACE_MB}`);
}

/**
 * Keeps the old generation near what is alive: under load a request's records are promoted and dead by
 * the next full collection, which V8 would put off until the old generation is 4 times what the last one
 * kept (the memory saved and the CPU it costs: bench/README.md, "Memory"). V8 reads the flag each time
 * it sets the next limit, so setting it now works; one given on the command line is kept
 * (`node --heap-growing-percent=0` restores V8's own choice, for throughput over memory).
 */
function boundHeapGrowth(): void {
  if (given(HEAP_GROWING_FLAG)) return;
  setFlagsFromString(`${HEAP_GROWING_FLAG}=${HEAP_GROWING_PERCENT}`);
}

/**
 * Turns off V8's allocation-site pretenuring: after a process's first writes V8 allocated pg's result
 * arrays in the old generation for good, so every row read was promoted and the list's collections cost
 * several times more (bench/README.md, "As users compare them"). One given on the command line
 * (`node --allocation-site-pretenuring`) is kept.
 */
function keepAllocationsYoung(): void {
  if (given(PRETENURING_FLAG)) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}

tuneRuntime();
