// Limits of contracts (docs/operations.md, Limits); signers' names, emails and phones are kernel-wide.

/**
 * Bytes of a contract upload (or MAX_UPLOAD_BYTES when lower): a document to sign, not an archive, and the preview
 * reads a PDF whole.
 */
export const MAX_CONTRACT_BYTES = 64 * 1024 * 1024;
/** Annotations of one contract, and separately fields. */
export const MAX_CONTRACT_PARTS = 200;
/** Highest page number a layout may name (from 1). */
export const MAX_CONTRACT_PAGE = 10000;
/** Points of a layout's offsets (from 0) and sizes (above 0). */
export const MAX_LAYOUT_POINTS = 100000;
/** Characters of the client's own id of an annotation or a field. */
export const MAX_PART_ID = 100;
/** Characters of an annotation's default value, and of a field's placeholder. */
export const MAX_PART_TEXT = 1000;
/** Objects of a PDF contract, those inside object streams included: reading each costs memory and time. */
export const MAX_CONTRACT_OBJECTS = 100_000;
/**
 * Bytes of a PDF contract's streams once decoded, all together: a PDF may weigh a megabyte and decode to
 * gigabytes (a compressed-PDF bomb).
 */
export const MAX_CONTRACT_INFLATED_BYTES = 512 * 1024 * 1024;
/** Bytes of its object and cross-reference streams once decoded: reading the PDF holds them whole. */
export const MAX_CONTRACT_OBJECT_STREAM_BYTES = 32 * 1024 * 1024;
/** PDFs checked, previewed or signed at once, each in a worker thread; the others wait their turn. */
export const PDF_WORKERS = 2;
/** Heap of a PDF worker, in MiB: a PDF that needs more is refused. */
export const PDF_WORKER_HEAP_MB = 256;
/** Seconds a PDF may take to be checked, previewed or signed: its worker is then stopped and the PDF refused. */
export const PDF_TIME_BUDGET_SECONDS = 30;
/**
 * Hours a contract's editor link (its `annotationUrl`) opens the editor: long enough for a working day, short
 * enough that a forwarded or logged link stops working. Links read within one hour share their end (and text).
 */
export const CONTRACT_EDITOR_LINK_HOURS = 24;
