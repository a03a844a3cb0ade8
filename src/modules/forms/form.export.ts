import type { FormAnswer, ItemForm } from './form.entities';
import { answerMap } from './form.service';

// An item's filled form as files of the request's zip: JSON for programs, CSV for spreadsheets.

/** A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. */
export function cell(value: string): string {
  // A cell a spreadsheet would run as a formula (=, +, -, @, or a tab or return first) is kept as text:
  // the recipient wrote it, and the owner opens it.
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export type FilledForm = { item: { id: string; name: string }; form: ItemForm; answers: readonly FormAnswer[] };

export function formJson({ item, form, answers }: FilledForm): string {
  return `${JSON.stringify({ item, form: { id: form.id, name: form.name }, answers: answerMap(answers) }, null, 2)}\n`;
}

/** `field,value` rows in the form's order, UTF-8 with a byte order mark (so spreadsheets read it as UTF-8). */
export function formCsv({ answers }: FilledForm): string {
  return `\uFEFF${['field,value', ...answers.map((a) => `${cell(a.field)},${cell(a.value)}`)].join('\r\n')}\r\n`;
}
