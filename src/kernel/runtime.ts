import { setFlagsFromString } from 'node:v8';

const YOUNG_BUFFER_FLAG = '--scavenger-max-new-space-capacity-mb';
/** Node 22's value (V8 12.4): the young collection for buffers comes at 32 MB of them. */
const NODE_22_NEW_SPACE_MB = 8;

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
export function freeStreamedBuffersYoung(): void {
  const v8Major = Number(process.versions.v8.split('.')[0]);
  const given = process.execArgv.some((arg) => arg.replaceAll('_', '-').startsWith(YOUNG_BUFFER_FLAG));
  if (v8Major < 13 || given) return;
  setFlagsFromString(`${YOUNG_BUFFER_FLAG}=${NODE_22_NEW_SPACE_MB}`);
}
