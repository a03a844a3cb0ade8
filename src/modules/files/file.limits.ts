// Limits of file names (docs/operations.md, Limits); sizes and counts of files are configuration (MAX_UPLOAD_BYTES,
// MAX_FILES_PER_ITEM), but for contracts (contract.limits.ts).

/** Characters a stored file name keeps (longer names are cut, keeping a short extension). */
export const MAX_FILE_NAME = 255;
/** Characters of one segment (folder or file) of a zip entry name. */
export const MAX_ZIP_SEGMENT = 120;
/** Characters of the `name` query parameter of a raw (not multipart) upload, before it is cut to MAX_FILE_NAME. */
export const MAX_RAW_UPLOAD_NAME = 1000;
