import type { Reader } from '../../kernel/db/db';
import type { ServiceSettings } from '../../kernel/graphql/context';
import { restDocument } from './document.rest-shapes';

// A document as REST shows it: its GET's answer and its events' data, from its row and its file's.

type DocumentLine = {
  id: string;
  request_id: string;
  item_id: string;
  name: string;
  mime_type: string;
  size: number;
  sha256: string;
  created_at: Date;
};

/** The REST body of document `id` (null when there is none). */
export async function documentView(
  db: Reader,
  settings: Pick<ServiceSettings, 'publicUrl'>,
  id: string,
): Promise<ReturnType<typeof restDocument> | null> {
  const [line] = await db.rows<DocumentLine>(
    `select d.id, d.request_id, d.item_id, f.name, f.mime_type, f.size, f.sha256, d.created_at
       from document d join stored_file f on f.id = d.file_id where d.id = ?`,
    [id],
  );
  return (
    line &&
    restDocument({
      id: line.id,
      name: line.name,
      mimeType: line.mime_type,
      size: line.size,
      sha256: line.sha256,
      request: { id: line.request_id },
      item: { id: line.item_id },
      downloadUrl: `${settings.publicUrl}/documents/${line.id}/download`,
      createdAt: line.created_at.toISOString(),
    })
  );
}
