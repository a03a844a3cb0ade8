import type { Reader } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { ContractLayoutInput, ContractUpdateInput } from '../../generated/resolvers-types';
import type { IncomingFile } from '../../kernel/http/files';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { deleteReferences, saveUpload } from '../files/file.service';
import type { Viewer } from '../identity/viewer';
import {
  Contract,
  type ContractAnnotation,
  type ContractField,
  type ContractLayout,
  type ContractRow,
} from './contract.entities';
import { INSPECT, runPdfTask } from './contract.pdf';
import { MAX_PERSON_NAME } from '../../kernel/limits';
import {
  MAX_CONTRACT_BYTES,
  MAX_CONTRACT_PAGE,
  MAX_CONTRACT_PARTS,
  MAX_LAYOUT_POINTS,
  MAX_PART_ID,
  MAX_PART_TEXT,
} from './contract.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'storage' | 'settings' | 'log'>;

// Contracts belong to the organization: any of its users may see, use, change and delete them.

/** The MIME type recorded for each accepted type file-type detects; DOC files are OLE compound files. */
const CONTRACT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  cfb: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export async function uploadContract(ctx: Ctx, upload: IncomingFile): Promise<ContractRow> {
  const rule = {
    accept: ({ extension }: { extension: string | null }) => (extension && CONTRACT_TYPES[extension]) || null,
    refusal: 'A contract must be a PDF, DOC or DOCX document',
    maxBytes: MAX_CONTRACT_BYTES,
    // Checked in a PDF worker before it is stored: a PDF bomb is refused here, not when it is read.
    inspect: async (bytes: Buffer, mimeType: string) => {
      if (mimeType === 'application/pdf') await runPdfTask(ctx, INSPECT, () => bytes, { field: ['file'] });
    },
  };
  return saveUpload(ctx, upload, rule, async (tx, file) => {
    const [contract] = await tx.insert(Contract, [
      {
        organization: ctx.viewer.organizationId,
        owner: ctx.viewer.userId,
        file: file.id,
        annotations: [],
        fields: [],
      },
    ]);
    return contract;
  });
}

export async function getContract(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ContractRow | null> {
  return findContract(ctx.db, ctx.viewer.organizationId, id);
}

/** The organization's contract, for callers that act for an organization rather than a viewer (signing). */
export async function findContract(db: Reader, organizationId: string, id: string): Promise<ContractRow | null> {
  if (!isUuid(id)) return null;
  const [contract] = await db.records(Contract, 'select * from contract where id = ? and organization_id = ?', [
    id,
    organizationId,
  ]);
  return contract ?? null;
}

export async function requireContract(ctx: Pick<Ctx, 'db' | 'viewer'>, id: string): Promise<ContractRow> {
  const contract = await getContract(ctx, id);
  if (!contract) throw AppError.notFound('Contract');
  return contract;
}

export function listContracts(ctx: Pick<Ctx, 'db' | 'viewer'>, args: PageArgs): Promise<Connection<ContractRow>> {
  return paginate(
    {
      db: ctx.db,
      entity: Contract,
      sql: 'select c.* from contract c where c.organization_id = ?',
      params: [ctx.viewer.organizationId],
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'DESC' },
  );
}

function checkNumber(check: InputCheck, field: FieldPath, value: number, min: number, exclusiveMin: boolean): void {
  if (!Number.isFinite(value) || value > MAX_LAYOUT_POINTS || (exclusiveMin ? value <= min : value < min)) {
    check.add(
      field,
      `Input should be a number ${exclusiveMin ? 'above' : 'from'} ${min} ${exclusiveMin ? 'and at most' : 'to'} ${MAX_LAYOUT_POINTS}`,
      'OUT_OF_RANGE',
    );
  }
}

function layoutFromInput(
  check: InputCheck,
  path: FieldPath,
  layout: ContractLayoutInput | null | undefined,
): ContractLayout | null {
  if (!layout) return null;
  check.int([...path, 'page'], layout.page, { min: 1, max: MAX_CONTRACT_PAGE });
  if (layout.position) {
    checkNumber(check, [...path, 'position', 'offsetX'], layout.position.offsetX, 0, false);
    checkNumber(check, [...path, 'position', 'offsetY'], layout.position.offsetY, 0, false);
  }
  if (layout.style) {
    checkNumber(check, [...path, 'style', 'width'], layout.style.width, 0, true);
    checkNumber(check, [...path, 'style', 'height'], layout.style.height, 0, true);
  }
  return { page: layout.page ?? null, position: layout.position ?? null, style: layout.style ?? null };
}

/** Replaces the annotations or fields given, checked whole first. */
export async function updateContract(ctx: Ctx, id: string, input: ContractUpdateInput): Promise<ContractRow> {
  const check = new InputCheck();
  for (const key of ['annotations', 'fields'] as const) {
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
    check.count([key], input[key], { max: MAX_CONTRACT_PARTS });
  }
  const annotations = input.annotations?.map((a, index): ContractAnnotation => {
    const path = ['annotations', index];
    check
      .text([...path, 'id'], a.id, { max: MAX_PART_ID })
      .text([...path, 'defaultValue'], a.defaultValue, { max: MAX_PART_TEXT });
    return {
      id: a.id ?? null,
      type: a.type,
      defaultValue: a.defaultValue ?? null,
      layout: layoutFromInput(check, [...path, 'layout'], a.layout),
    };
  });
  const fields = input.fields?.map((f, index): ContractField => {
    const path = ['fields', index];
    const assignee = f.assignedTo;
    check
      .text([...path, 'id'], f.id, { max: MAX_PART_ID })
      .text([...path, 'placeholder'], f.placeholder, { max: MAX_PART_TEXT });
    if (assignee) {
      check
        .email([...path, 'assignedTo', 'email'], assignee.email)
        .phone([...path, 'assignedTo', 'phone'], assignee.phone)
        .text([...path, 'assignedTo', 'firstName'], assignee.firstName, { max: MAX_PERSON_NAME })
        .text([...path, 'assignedTo', 'lastName'], assignee.lastName, { max: MAX_PERSON_NAME });
    }
    return {
      id: f.id ?? null,
      type: f.type,
      placeholder: f.placeholder ?? null,
      assignedTo: assignee
        ? {
            email: assignee.email ?? null,
            firstName: assignee.firstName ?? null,
            lastName: assignee.lastName ?? null,
            phone: assignee.phone ?? null,
          }
        : null,
      layout: layoutFromInput(check, [...path, 'layout'], f.layout),
    };
  });
  check.done();
  return ctx.db.transaction(async (tx) => {
    const contract = await requireContract({ db: tx, viewer: ctx.viewer }, id);
    // `updatedAt` changes even when neither is given.
    return tx.update(Contract, contract.id, { annotations, fields });
  });
}

/** Deletes a contract and its bytes, unless an item of a live request that is not closed still uses it. */
export async function deleteContract(ctx: Ctx, id: string): Promise<string> {
  return deleteReferences(ctx, async (tx) => {
    const contract = await requireContract({ db: tx, viewer: ctx.viewer }, id);
    const [{ count }] = await tx.rows<{ count: number }>(
      `select count(*)::int as count from request_item i join request r on r.id = i.request_id
        where i.contract_id = ? and r.deleted_at is null and r.state <> 'CLOSED'`,
      [contract.id],
    );
    if (count > 0) {
      throw AppError.invalidState(`${count} item(s) of open requests use this contract; delete or close those first`);
    }
    await tx.execute('delete from contract where id = ?', [contract.id]);
    return { result: id, fileIds: [contract.file.id] };
  });
}

/** Reports each `contractId` that names no contract of the viewer's organization. */
export async function checkContractIds(
  ctx: { db: Reader; viewer: Viewer },
  check: InputCheck,
  refs: { path: FieldPath; contractId: string | null }[],
): Promise<void> {
  const ids = [...new Set(refs.map((r) => r.contractId).filter((id): id is string => id !== null && isUuid(id)))];
  if (ids.length === 0) return;
  const found = new Set(
    (
      await ctx.db.rows<{ id: string }>('select id from contract where id = any(?::uuid[]) and organization_id = ?', [
        ids,
        ctx.viewer.organizationId,
      ])
    ).map((c) => c.id),
  );
  for (const { path, contractId } of refs) {
    if (contractId && isUuid(contractId) && !found.has(contractId))
      check.add([...path, 'contractId'], 'Names no contract of your organization', 'NOT_FOUND');
  }
}
