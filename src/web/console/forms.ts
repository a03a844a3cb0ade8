// What the console's forms share, without the browser: userErrors placed at their fields, and the
// conversions between what a form holds (strings) and what the API takes.

export type FieldError = { field: readonly string[] | null; message: string; code?: string };

/** The key of a field path (`["input","recipients","0","email"]` → `input.recipients.0.email`). */
export const fieldKey = (field: readonly (string | number)[] | null | undefined): string =>
  field ? field.join('.') : '';

/** The DOM id of the control that edits a field path. */
export const fieldId = (key: string): string => `field-${key.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

/**
 * The errors by field key. An error on a field no control shows (a list as a whole, the input itself)
 * is kept under its own key too; `unplaced` says which keys have no control, for the form's summary.
 */
export function errorsByField(errors: readonly FieldError[]): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const error of errors) {
    const key = fieldKey(error.field);
    byField.set(key, [...(byField.get(key) ?? []), error.message]);
  }
  return byField;
}

/** The errors whose field is not one of `shown` (they are listed at the top of the form only). */
export const unplaced = (errors: readonly FieldError[], shown: ReadonlySet<string>): FieldError[] =>
  errors.filter((error) => !shown.has(fieldKey(error.field)));

/** A text field's value for the API: trimmed, and absent when empty. */
export const text = (value: string): string | undefined => value.trim() || undefined;

/** A `datetime-local` or `date` field's value (the browser's time zone) as an RFC 3339 instant; absent when empty. */
export function instant(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value.length === 10 ? `${value}T00:00` : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as a `datetime-local` field's value, in the browser's time zone. */
export function localDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A number field's value; absent when empty or not a number (a number field holds '' then). */
export function whole(value: string): number | undefined {
  const number = value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** A size in bytes for people. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
