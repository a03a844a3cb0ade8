import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, User } from '../identity/identity.entities';
import { StoredFile } from '../files/file.entities';
import type { Row } from '../../kernel/db/db';

export type ContractLayout = {
  page?: number | null;
  position?: {
    offsetX: number;
    offsetY: number;
    anchorPoint: 'TOP_LEFT' | 'TOP_RIGHT' | 'BOTTOM_LEFT' | 'BOTTOM_RIGHT';
  } | null;
  style?: { width: number; height: number } | null;
};

/** A value the owner places on the document (spec 2.8 annotations). */
export type ContractAnnotation = {
  id?: string | null;
  type: 'STRING' | 'NUMBER' | 'DATE';
  defaultValue?: string | null;
  layout?: ContractLayout | null;
};

/** A place a signer fills in (spec 2.8 fields). */
export type ContractField = {
  id?: string | null;
  type: 'TEXT' | 'SIGNATURE' | 'CHECKBOX' | 'RADIO' | 'INITIALS' | 'DATE';
  placeholder?: string | null;
  assignedTo?: {
    email?: string | null;
    firstName?: string | null;
    lastName?: string | null;
    phone?: string | null;
  } | null;
  layout?: ContractLayout | null;
};

/** A document to e-sign (PDF, DOC or DOCX) with its annotations and fields. */
export const Contract = defineEntity({
  name: 'Contract',
  tableName: 'contract',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    file: () => p.manyToOne(StoredFile).ref(),
    annotations: p.json<ContractAnnotation[]>(),
    fields: p.json<ContractField[]>(),
    ...timestamps(),
  },
});
export type Contract = InferEntity<typeof Contract>;
/** A Contract as read paths return it (see `Row`). */
export type ContractRow = Row<Contract>;
