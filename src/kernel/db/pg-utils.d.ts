// What lean.ts uses of pg's own helpers (the package's types leave this module out).
declare module 'pg/lib/utils' {
  /** A value as pg sends it for a bind parameter: text (or a Buffer), null for null and undefined. */
  export function prepareValue(value: unknown): string | Buffer | null;
}
