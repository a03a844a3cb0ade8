import type { RestContractFragment } from '../../generated/operations';
import type { Reader } from '../../kernel/db/db';
import type { ServiceSettings } from '../../kernel/graphql/context';
import { editorPath } from './contract.editor-link';
import { Contract } from './contract.entities';
import { restContract } from './contract.rest-shapes';

// A contract as REST shows it: its GET's answer and its events' data, from its row and its file's.

/** The REST body of contract `id` (null when there is none). */
export async function contractView(
  db: Reader,
  settings: Pick<ServiceSettings, 'publicUrl'>,
  id: string,
): Promise<ReturnType<typeof restContract> | null> {
  const [contract] = await db.records(Contract, 'select * from contract where id = ?', [id]);
  if (!contract) return null;
  const [file] = await db.rows<{ name: string; mime_type: string }>(
    'select name, mime_type from stored_file where id = ?',
    [contract.file.id],
  );
  return restContract({
    id: contract.id,
    name: file.name,
    mimeType: file.mime_type,
    annotations: contract.annotations,
    fields: contract.fields,
    // An event's data names no reader to sign a link for: the page opens one through the console's session.
    annotationUrl: `${settings.publicUrl}${editorPath(contract.id)}`,
    createdAt: contract.createdAt.toISOString(),
    updatedAt: contract.updatedAt.toISOString(),
  } as RestContractFragment);
}
