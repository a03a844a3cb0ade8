import type { Reader } from '../../kernel/db/db';
import { cell } from '../forms/form.export';
import { answerMap } from '../forms/form.service';
import { RequestItem } from '../items/item.entities';
import type { ItemStatus, ItemType } from '../items/item.enums';
import { Recipient } from '../recipients/recipient.entities';

// A request's answers at the root of its zip: `answers.json` for programs, `answers.csv` for
// spreadsheets, one row per recipient and item that asks for an answer (a QUESTION, a form).

export type AnswerRow = {
  recipient: { id: string; name: string | null; email: string | null; phone: string | null };
  item: { id: string; name: string; type: ItemType; status: ItemStatus };
  answer: string | null;
  form: { id: string; name: string; answers: Record<string, string> } | null;
};

/** The rows of a request's answers, recipients and items in their order. */
export async function requestAnswers(db: Reader, requestId: string): Promise<AnswerRow[]> {
  const [recipients, items] = await Promise.all([
    db.records(Recipient, 'select * from recipient where request_id = ? order by position', [requestId]),
    db.records(
      RequestItem,
      `select * from request_item where request_id = ? and deleted_at is null and (type = 'QUESTION' or form is not null)
        order by position`,
      [requestId],
    ),
  ]);
  // Every recipient of a request works on all its items, and an item holds one answer: each
  // recipient's row carries it.
  return recipients.flatMap((recipient) =>
    items.map((item) => ({
      recipient: {
        // The id REST answers for a recipient: its contact's.
        id: recipient.contact.id,
        name: [recipient.firstName, recipient.lastName].filter(Boolean).join(' ') || null,
        email: recipient.email ?? null,
        phone: recipient.phone ?? null,
      },
      item: { id: item.id, name: item.name, type: item.kind, status: item.status },
      answer: item.kind === 'QUESTION' ? (item.answer ?? null) : null,
      form: item.form ? { id: item.form.id, name: item.form.name, answers: answerMap(item.formAnswers ?? []) } : null,
    })),
  );
}

export const answersJson = (rows: readonly AnswerRow[]): string => `${JSON.stringify(rows, null, 2)}\n`;

/** UTF-8 with a byte order mark, as the forms' CSV; a form's answers are `field: value` lines in one cell. */
export function answersCsv(rows: readonly AnswerRow[]): string {
  const header =
    'recipient_id,recipient_name,recipient_email,recipient_phone,item_id,item_name,item_type,item_status,answer,form_name,form_answers';
  const lines = rows.map(({ recipient, item, answer, form }) =>
    [
      recipient.id,
      recipient.name ?? '',
      recipient.email ?? '',
      recipient.phone ?? '',
      item.id,
      item.name,
      item.type,
      item.status,
      answer ?? '',
      form?.name ?? '',
      form
        ? Object.entries(form.answers)
            .map(([field, value]) => `${field}: ${value}`)
            .join('\n')
        : '',
    ]
      .map(cell)
      .join(','),
  );
  return `\uFEFF${[header, ...lines].join('\r\n')}\r\n`;
}
