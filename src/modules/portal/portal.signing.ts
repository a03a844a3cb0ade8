import { Readable } from 'node:stream';
import { AppError } from '../../kernel/errors/app-error';
import { isUuid } from '../../kernel/validation/input-check';
import { findContract } from '../contracts/contract.service';
import type { StoredFileRow } from '../files/file.entities';
import type { Language } from '../requests/request.enums';
import { signContract, type SignatureInput } from '../signing/signing.service';
import { recipientMayChange, sessionOf, storedFile, storeSignedDocument, type PortalCtx } from './portal.service';

// A recipient signs an E_SIGNATURE item: the signing engine makes the signed PDF (stamped fields, audit
// page, the organization's PKCS#7 signature) from what the recipient filled in, and the PDF becomes the
// item's document, as `contract.signed` and `document.uploaded` tell.

export type RecipientSignInput = {
  itemId: string;
  fields?: unknown;
  signature: { type: string; text?: string | null; pngBase64?: string | null };
};

type SigningHead = {
  organization_id: string;
  organization_name: string;
  state: Parameters<typeof recipientMayChange>[0]['state'];
  expiration_date: Date | null;
  item_type: string;
  contract_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  /** What the signer reads: its own language, else the request's (the audit page is written in it). */
  language: Language;
};

/** The item to sign, its contract and the signer, as the session sees them (nothing locked: signing takes a while). */
async function signingHead(ctx: PortalCtx, itemId: string): Promise<SigningHead> {
  const session = sessionOf(ctx.viewer);
  const [head] = isUuid(itemId)
    ? await ctx.db.rows<SigningHead>(
        `select r.organization_id, o.name as organization_name, r.state, r.expiration_date, i.type as item_type, i.contract_id,
                rc.first_name, rc.last_name, rc.email, rc.phone, coalesce(rc.language, r.language) as language
           from request_item i join request r on r.id = i.request_id join organization o on o.id = r.organization_id
           join recipient rc on rc.id = ? and rc.request_id = r.id
          where i.id = ? and i.request_id = ? and i.deleted_at is null and r.deleted_at is null`,
        [session.id, itemId, session.requestId],
      )
    : [];
  if (!head) throw AppError.notFound('Item');
  if (head.item_type !== 'E_SIGNATURE' || !head.contract_id) {
    throw AppError.validation([
      { field: ['itemId'], message: `This item is ${head.item_type}, not E_SIGNATURE`, code: 'INVALID' },
    ]);
  }
  return head;
}

/** What the body's `fields` and `signature` mean to the engine, or a 422 naming what is wrong. */
function signingInput(input: RecipientSignInput): { values: Record<string, string>; signature: SignatureInput } {
  const fields = input.fields ?? {};
  if (
    typeof fields !== 'object' ||
    Array.isArray(fields) ||
    Object.values(fields).some((value) => typeof value !== 'string')
  ) {
    throw AppError.validation([
      { field: ['fields'], message: 'fields maps field ids to string values', code: 'INVALID' },
    ]);
  }
  const { type, text, pngBase64 } = input.signature;
  if (type === 'TYPED' && text?.trim()) return { values: fields as Record<string, string>, signature: { type, text } };
  if (type === 'DRAWN' && pngBase64)
    return { values: fields as Record<string, string>, signature: { type, png_base64: pngBase64 } };
  throw AppError.validation([
    {
      field: ['signature'],
      message: 'signature is {"type": "TYPED", "text"} or {"type": "DRAWN", "png_base64"}',
      code: type === 'TYPED' || type === 'DRAWN' ? 'REQUIRED' : 'INVALID',
    },
  ]);
}

/**
 * Signs the item's contract as the session's recipient and keeps the signed PDF as the item's document; the item's id.
 */
export async function signItem(ctx: PortalCtx, input: RecipientSignInput): Promise<string> {
  const session = sessionOf(ctx.viewer);
  // Another request's item is not found, whatever else the input says.
  const head = await signingHead(ctx, input.itemId);
  const { values, signature } = signingInput(input);
  const now = ctx.settings.clock.now();
  // Refused before the engine's work, and checked again under the lock when the document is kept.
  if (!recipientMayChange({ state: head.state, expirationDate: head.expiration_date }, now))
    throw AppError.invalidState(`The request cannot be changed now: it is ${head.state}`);
  const signed = await signContract(ctx, {
    organization: { id: head.organization_id, name: head.organization_name },
    contractId: head.contract_id!,
    signer: {
      recipientId: session.id,
      name: [head.first_name, head.last_name].filter(Boolean).join(' ') || head.email || head.phone || 'Recipient',
      email: head.email,
      phone: head.phone,
      ip: ctx.viewer.actor.ip ?? 'unknown',
      userAgent: ctx.viewer.actor.userAgent ?? 'unknown',
    },
    values,
    signature,
    at: now,
    language: head.language,
  });
  await storeSignedDocument(ctx, input.itemId, head.contract_id!, {
    stream: Readable.from([signed.pdf]),
    name: signed.name,
    claimedType: 'application/pdf',
  });
  return input.itemId;
}

/** The contract's file an item asks the session's recipient to sign. */
export async function contractToSign(ctx: PortalCtx, itemId: string): Promise<StoredFileRow> {
  const head = await signingHead(ctx, itemId);
  const contract = await findContract(ctx.db, head.organization_id, head.contract_id!);
  if (!contract) throw AppError.notFound('Contract');
  return storedFile(ctx.db, contract.file.id);
}
