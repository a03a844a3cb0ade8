import { parse } from 'csv-parse/sync';
import type { BulkSendRowInput } from '../../generated/operations';
import { AppError, type UserError } from '../../kernel/errors/app-error';
import { LANGUAGE_ALIASES, LANGUAGES } from '../requests/request.enums';
import { bulkSendRowFromRest, type BulkSendRowRest } from './bulk-send.rest-shapes';

/** The columns a bulk send's CSV file may have (besides `user_metadata.<key>`), as the JSON rows name them. */
const COLUMNS = ['first_name', 'last_name', 'email', 'phone', 'language', 'name', 'due_date', 'personal_message'];
const METADATA = 'user_metadata.';
const LANGUAGE_CODES = new Set<string>([...LANGUAGES, ...Object.keys(LANGUAGE_ALIASES)]);

/**
 * A CSV file's rows (a header line, then a recipient per line) as the rows of a bulk send, each with its line in the
 * file. What the JSON body's schema would refuse (an unknown column, a language or date that is none) is refused here
 * with its line, every problem at once; the rest is checked by the service as for JSON rows.
 */
export function rowsFromCsv(bytes: Buffer): BulkSendRowInput[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(bytes, { columns: true, bom: true, info: true, skip_empty_lines: true, trim: true });
  } catch (err) {
    throw AppError.validation([
      { field: ['file'], message: `Not a CSV file: ${(err as Error).message}`, code: 'INVALID' },
    ]);
  }
  const errors: UserError[] = [];
  const header = records[0] ? Object.keys(records[0].record) : [];
  for (const column of header) {
    if (!COLUMNS.includes(column) && !(column.startsWith(METADATA) && column.length > METADATA.length))
      errors.push({
        field: ['file'],
        message: `Line 1: unknown column "${column}" (columns: ${COLUMNS.join(', ')}, ${METADATA}<key>)`,
        code: 'INVALID',
      });
  }
  const rows = records.map(({ record, info }, index) => {
    const value = (column: string) => (record[column] ? record[column] : null);
    const refuse = (column: string, message: string) =>
      errors.push({
        field: ['rows', String(index), column],
        message: `Line ${info.lines}: ${message}`,
        code: 'INVALID',
      });
    const language = value('language');
    if (language !== null && !LANGUAGE_CODES.has(language)) refuse('language', `"${language}" is no language code`);
    const due = value('due_date');
    if (due !== null && Number.isNaN(Date.parse(due))) refuse('due_date', `"${due}" is no ISO 8601 date-time`);
    const metadata = Object.entries(record).filter(([column, cell]) => column.startsWith(METADATA) && cell !== '');
    const row: BulkSendRowRest = {
      first_name: value('first_name'),
      last_name: value('last_name'),
      email: value('email'),
      phone: value('phone'),
      language,
      name: value('name'),
      due_date: due,
      personal_message: value('personal_message'),
      user_metadata: metadata.length
        ? Object.fromEntries(metadata.map(([column, cell]) => [column.slice(METADATA.length), cell]))
        : null,
    };
    return bulkSendRowFromRest(row, info.lines);
  });
  if (errors.length) throw AppError.validation(errors);
  return rows;
}
