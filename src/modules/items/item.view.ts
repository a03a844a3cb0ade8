import type { SubjectView } from '../../kernel/graphql/events';
import type { RestItemAFragment } from '../../generated/operations';
import type { RequestViewPart } from '../requests/request.view';
import { RequestItem, type RequestItemRow } from './item.entities';
import { percentComplete } from './item.progress';
import { restItemA } from './item.rest-shapes';

// Items as REST shows them (shape A) in their requests' views and in their own events, from rows.

/** An item's REST fragment: its question's answer, or its form, the answers given to it and its upload rules. */
export function itemFragment(item: RequestItemRow): RestItemAFragment {
  // Built by assignment, not spread from a base: a request's list makes a hundred of these.
  const fragment: Record<string, unknown> = {
    id: item.id,
    kind: item.kind,
    name: item.name,
    description: item.description ?? null,
    required: item.required,
    verified: item.status === 'VERIFIED',
    isNa: item.isNa,
  };
  if (item.kind === 'QUESTION') fragment.answer = item.answer ?? null;
  else if (item.kind === 'UPLOAD') {
    fragment.form = item.form
      ? {
          id: item.form.id,
          name: item.form.name,
          allowFileUpload: item.form.allowFileUpload,
          fields: item.form.fields.map(({ name, defaultValue, readOnly }) => ({
            name,
            defaultValue: defaultValue ?? null,
            readOnly,
          })),
        }
      : null;
    fragment.formAnswers = item.formAnswers ?? null;
    fragment.uploadRules = item.uploadRules ?? null;
  }
  return fragment as RestItemAFragment;
}

/** An item's REST body (shape A): its events' data and its rows' answers. */
export const itemView = (item: RequestItemRow) => restItemA(itemFragment(item));

/** The REST body of item `id`, deleted or not (an event's subject): null when there is none. */
export const itemSubjectView: SubjectView = async (db, _settings, id) => {
  const [item] = await db.records(RequestItem, 'select * from request_item where id = ?', [id]);
  return item ? itemView(item) : null;
};

const byPosition = (a: RequestItemRow, b: RequestItemRow) => a.position - b.position;

/** The requests' items, in order, and how complete they are. */
export const requestItemsView: RequestViewPart<RequestItemRow> = {
  entity: RequestItem,
  read: (db, requests) =>
    db.records(
      RequestItem,
      `select ${db.columns(RequestItem)} from request_item
        where request_id = any(?::uuid[]) and organization_id = ? and deleted_at is null order by position`,
      [requests.map((request) => request.id), requests[0].organization.id],
      { prepared: true },
    ),
  written: (recordsOf) => recordsOf(RequestItem).sort(byPosition),
  shape(_settings, requests, items) {
    const byRequest = new Map<string, RequestItemRow[]>(requests.map((request) => [request.id, []]));
    for (const item of items) byRequest.get(item.request.id)?.push(item);
    return new Map(
      [...byRequest].map(([id, list]) => [
        id,
        { items: list.map(itemFragment), percentComplete: percentComplete(list) },
      ]),
    );
  },
};
