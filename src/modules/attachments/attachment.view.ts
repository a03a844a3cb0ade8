import type { RestRequestFragment } from '../../generated/operations';
import type { RequestViewPart } from '../requests/request.view';
import { Attachment } from './attachment.entities';

// A request's own attachments (not its items') as REST shows them in its views, from rows.

type AttachmentLine = { request_id: string; id: string; name: string; mime_type: string };

export const requestAttachmentsView: RequestViewPart<AttachmentLine> = {
  entity: Attachment,
  read: (db, requests) =>
    db.rows<AttachmentLine>(
      `select a.request_id, a.id, f.name, f.mime_type
         from attachment a join stored_file f on f.id = a.file_id
        where a.request_id = any(?::uuid[]) and a.organization_id = ? and a.item_id is null
        order by a.position`,
      [requests.map((request) => request.id), requests[0].organization.id],
      { prepared: true },
    ),
  shape(_settings, requests, lines) {
    const byRequest = new Map<string, RestRequestFragment['attachments']>(requests.map((request) => [request.id, []]));
    for (const line of lines)
      byRequest.get(line.request_id)!.push({ id: line.id, name: line.name, mimeType: line.mime_type });
    return new Map([...byRequest].map(([id, attachments]) => [id, { attachments }]));
  },
};
