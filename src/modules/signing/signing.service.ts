import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import { MAX_DATE, MIN_DATE } from '../../kernel/limits';
import { InputCheck } from '../../kernel/validation/input-check';
import { workerTask } from '../../kernel/workers/pool';
import type { Contract, ContractField } from '../contracts/contract.entities';
import type { Language } from '../requests/request.enums';
import { runPdfTask } from '../contracts/contract.pdf';
import { findContract } from '../contracts/contract.service';
import { readFile, requireStoredFile } from '../files/file.service';
import { organizationKey } from './signing.certificate';
import type { SigningKey } from './signing.key';
import {
  MAX_FIELD_VALUE,
  MAX_SIGNATURE_PNG_BYTES,
  MAX_SIGNATURE_PNG_PIXELS,
  MAX_SIGNATURE_TEXT,
} from './signing.limits';
import type { StampValue } from './signing.pdf';
import { refuse } from './signing.pdf-tasks';
import type * as tasks from './signing.pdf-tasks';

// The e-signing engine: a contract, a signer and the values they gave become a signed PDF. It stores
// nothing but the organization's certificate; the caller (the recipient portal) keeps the PDF.

export type SigningCtx = Pick<GraphQLContext, 'db' | 'settings' | 'storage' | 'log'>;

export type Signer = {
  recipientId: string;
  name: string;
  /** Matches the fields assigned by email (ignoring case); null for a recipient reached by phone. */
  email: string | null;
  /** Matches the fields assigned by phone, when given. */
  phone?: string | null;
  ip: string;
  userAgent: string;
};

export type SignatureInput = { type: 'TYPED'; text: string } | { type: 'DRAWN'; png_base64: string };

export type SignInput = {
  organization: { id: string; name: string };
  contractId: string;
  signer: Signer;
  /** Values of the signer's fields, by field key (see `signerFields`). */
  values: Record<string, string>;
  signature: SignatureInput;
  at: Date;
  /** The signer's language: the audit pages and the words they show for values are in it. */
  language: Language;
};

export type SignedContract = {
  pdf: Buffer;
  /** A file name for the signed PDF: the contract's, ending `.signed.pdf`. */
  name: string;
  /** SHA-256 (hex) of the contract as uploaded. */
  originalSha256: string;
  /** SHA-256 of the contract with the values stamped, before the audit pages and the signature. */
  stampedSha256: string;
  /** SHA-256 of `pdf`. */
  signedSha256: string;
};

/** One field a signer fills in, with the key its value goes under. */
export type SignerField = { key: string; field: ContractField };

/** How `values` names a field: its `id`, or `field-<n>` (n from 1, its place in the list) when it has none. */
export const fieldKey = (field: ContractField, index: number): string => field.id ?? `field-${index + 1}`;

const digits = (phone: string) => phone.replace(/\D/g, '');

/** The fields of the contract this signer fills in: those assigned to them, and those assigned to nobody. */
export function signerFields(
  contract: Pick<Contract, 'fields'>,
  signer: Pick<Signer, 'email' | 'phone'>,
): SignerField[] {
  const email = signer.email?.toLowerCase();
  const phone = signer.phone ? digits(signer.phone) : null;
  return contract.fields.flatMap((field, index) => {
    const to = field.assignedTo;
    const unassigned = !to?.email && !to?.phone;
    const mine = (email && to?.email?.toLowerCase() === email) || (phone && to?.phone && digits(to.phone) === phone);
    return unassigned || mine ? [{ key: fieldKey(field, index), field }] : [];
  });
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_URL_PREFIX = /^data:image\/png;base64,/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The PNG bytes of a drawn signature, or why there are none (a base64 PNG, a data: URL accepted). */
function decodePng(check: InputCheck, encoded: unknown): Buffer | null {
  const refuse = (message: string) => (check.add(['signature'], message, 'INVALID'), null);
  if (typeof encoded !== 'string' || encoded.length === 0)
    return refuse('A drawn signature needs png_base64, a PNG image in base64');
  const base64 = encoded.replace(DATA_URL_PREFIX, '').replace(/\s+/g, '');
  // Checked before decoding, so an oversized body costs no allocation of its size.
  if (Math.floor((base64.length * 3) / 4) > MAX_SIGNATURE_PNG_BYTES + 2) return tooLarge(check);
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) return refuse('png_base64 is not base64');
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_SIGNATURE_PNG_BYTES) return tooLarge(check);
  if (!bytes.subarray(0, PNG_MAGIC.length).equals(PNG_MAGIC)) return refuse('The drawn signature is not a PNG image');
  // The header chunk comes first: its width and height say what decoding will cost.
  if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR')
    return refuse('The drawn signature is not a readable PNG image');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width * height > MAX_SIGNATURE_PNG_PIXELS) {
    return (
      check.add(
        ['signature'],
        `The drawn signature is ${width} by ${height} pixels; at most ${MAX_SIGNATURE_PNG_PIXELS.toLocaleString('en-US')} pixels`,
        'TOO_LONG',
      ),
      null
    );
  }
  return bytes;
}

function tooLarge(check: InputCheck): null {
  check.add(['signature'], `The drawn signature is over ${MAX_SIGNATURE_PNG_BYTES / 2 ** 20} MiB`, 'TOO_LONG');
  return null;
}

function checkSignature(check: InputCheck, signature: SignatureInput): { typed: string } | { png: Buffer } | null {
  if (signature?.type === 'TYPED') {
    const before = check.errors.length;
    check.text(['signature'], typeof signature.text === 'string' ? signature.text : null, {
      max: MAX_SIGNATURE_TEXT,
      min: 1,
      required: true,
    });
    return check.errors.length === before ? { typed: signature.text.trim() } : null;
  }
  if (signature?.type === 'DRAWN') {
    const png = decodePng(check, signature.png_base64);
    return png ? { png } : null;
  }
  check.add(['signature'], 'A signature is {"type": "TYPED", "text"} or {"type": "DRAWN", "png_base64"}', 'INVALID');
  return null;
}

/** What a field's value stamps, or null when the value is refused (the check says why). */
type FieldValue = Pick<SigningPlan['fields'][number], 'value' | 'shown'> | null;

function checkValue(check: InputCheck, key: string, type: ContractField['type'], given: unknown, at: Date): FieldValue {
  const path = ['fields', key];
  if (given !== undefined && typeof given !== 'string')
    return (check.add(path, 'Input should be a string', 'INVALID'), null);
  switch (type) {
    case 'SIGNATURE':
    case 'INITIALS':
      // The mark is `signature`'s: a value sent here (a client giving every field one, as the body's
      // `fields` map invites) is not stamped, so it is taken and left aside rather than refused.
      return { value: type, shown: '' };
    case 'TEXT': {
      const before = check.errors.length;
      check.text(path, given, { max: MAX_FIELD_VALUE, min: 1, required: true });
      return check.errors.length === before ? { value: { kind: 'TEXT', text: given! }, shown: given! } : null;
    }
    case 'CHECKBOX':
    case 'RADIO':
      if (given !== undefined && given !== 'true' && given !== 'false')
        return (check.add(path, `A ${type} field's value is "true" or "false"`, 'INVALID'), null);
      return {
        value: { kind: 'MARK', checked: given === 'true' },
        // Told in the signer's language by the PDF task (checked, not checked).
        shown: '',
      };
    case 'DATE': {
      const day = given ?? at.toISOString().slice(0, 10);
      const match = ISO_DAY.exec(day);
      const time = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
      const real = match && new Date(time).toISOString().slice(0, 10) === day && time >= MIN_DATE && time <= MAX_DATE;
      if (!real) return (check.add(path, 'A DATE field\'s value is a day, "YYYY-MM-DD"', 'INVALID'), null);
      return { value: { kind: 'TEXT', text: day }, shown: day };
    }
  }
}

/** A signer's input once checked: each of their fields with what it stamps, and the signature. */
export type SigningPlan = {
  fields: { key: string; field: ContractField; value: StampValue | 'SIGNATURE' | 'INITIALS'; shown: string }[];
  signature: { typed: string } | { png: Buffer };
};

/** Checks a signer's values and signature against the contract's fields: every problem in one 422. */
export function checkSigning(
  contract: Pick<Contract, 'fields'>,
  input: Pick<SignInput, 'signer' | 'values' | 'signature' | 'at'>,
): SigningPlan {
  const check = new InputCheck();
  const fields = signerFields(contract, input.signer);
  const known = new Set(fields.map((f) => f.key));
  for (const key of Object.keys(input.values ?? {})) {
    if (!known.has(key))
      check.add(['fields', key], 'Names no field of this contract that this signer fills in', 'NOT_FOUND');
  }
  // Own keys only: a field whose id is "constructor" must not find Object's.
  const valueOf = (key: string) => (input.values && Object.hasOwn(input.values, key) ? input.values[key] : undefined);
  const checked = fields.map(({ key, field }) => ({
    key,
    field,
    given: checkValue(check, key, field.type, valueOf(key), input.at),
  }));
  const signature = checkSignature(check, input.signature);
  check.done();
  return { fields: checked.map(({ key, field, given }) => ({ key, field, ...given! })), signature: signature! };
}

/** What the audit page says besides the fields. */
export type SigningRecord = {
  documentName: string;
  contractId: string;
  organizationName: string;
  signer: Signer;
  at: Date;
  language: Language;
};

const SIGN = workerTask<typeof tasks.sign>(join(__dirname, 'signing.pdf-tasks.ts'), 'sign');

/**
 * The signed PDF of a checked plan, without the database: stamps, audit pages, signature, made in a PDF
 * worker. `original` is read when a worker is free; `signingKey` is called once the PDF is known to be
 * signable, so a refused PDF makes no certificate.
 */
export async function signPdf(
  ctx: { log: FastifyBaseLogger },
  original: () => Promise<Buffer>,
  plan: SigningPlan,
  record: SigningRecord,
  signingKey: () => Promise<SigningKey>,
): Promise<Omit<SignedContract, 'name'>> {
  const signed = await runPdfTask(ctx, SIGN, async () => ({ original: await original(), plan, record }), {
    field: [],
    answer: signingKey,
  });
  // The signed bytes cross from the worker as a plain Uint8Array.
  return { ...signed, pdf: Buffer.from(signed.pdf.buffer, signed.pdf.byteOffset, signed.pdf.byteLength) };
}

/**
 * Signs a contract for one signer: stamps their values and signature at the fields' places, appends
 * the audit pages, and signs the whole with the organization's certificate (PKCS#7 detached).
 * Refusals are AppErrors: `Contract not found` (not the organization's), 422s naming `fields.<key>` or
 * `signature`, and a 422 for a contract that is not a readable, unencrypted PDF. Stores nothing but
 * the organization's certificate, on its first signature.
 */
export async function signContract(ctx: SigningCtx, input: SignInput): Promise<SignedContract> {
  const contract = await findContract(ctx.db, input.organization.id, input.contractId);
  if (!contract) throw AppError.notFound('Contract');
  const plan = checkSigning(contract, input);
  const file = await requireStoredFile(ctx.db, contract.file.id);
  if (file.mimeType !== 'application/pdf')
    throw refuse(`Only PDF contracts can be signed; this one is ${file.mimeType}`);
  const record = {
    documentName: file.name,
    contractId: contract.id,
    organizationName: input.organization.name,
    signer: input.signer,
    at: input.at,
    language: input.language,
  };
  const signed = await signPdf(
    ctx,
    () => readFile(ctx, file),
    plan,
    record,
    () => organizationKey(ctx, input.organization),
  );
  ctx.log.info(
    { contractId: contract.id, recipientId: input.signer.recipientId, bytes: signed.pdf.length },
    'contract signed',
  );
  return { ...signed, name: file.name.replace(/(\.pdf)?$/i, '.signed.pdf') };
}
