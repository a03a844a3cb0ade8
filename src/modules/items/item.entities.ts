import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Recipient } from '../recipients/recipient.entities';
import { ITEM_STATUSES, ITEM_TYPES, QUESTION_TYPES } from './item.enums';
import { Request } from '../requests/request.entities';
import { Organization } from '../identity/identity.entities';
import type { Row } from '../../kernel/db/db';
import type { FormAnswer, ItemForm } from '../forms/form.entities';
import type { UploadRules } from './item.upload-rules';

export const RequestItem = defineEntity({
  name: 'RequestItem',
  tableName: 'request_item',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    request: () => p.manyToOne(Request).ref(),
    position: p.integer(),
    // Named as the API names it (GraphQL's `kind`), so GraphQL reads it without a resolver; the column keeps its name.
    kind: p.enum([...ITEM_TYPES]).fieldName('type'),
    name: p.string().length(1000),
    description: p.text().nullable(),
    required: p.boolean(),
    status: p.enum([...ITEM_STATUSES]),
    isNa: p.boolean(),
    questionType: p.enum([...QUESTION_TYPES]).nullable(),
    answer: p.text().nullable(),
    contractId: p.uuid().nullable(),
    // The form an UPLOAD item asks to fill in (its own copy), and the recipient's answers.
    formId: p.uuid().nullable(),
    form: p.json<ItemForm>().nullable(),
    formAnswers: p.json<FormAnswer[]>().nullable(),
    // What an UPLOAD item accepts (see UploadRules); null: anything the service takes.
    uploadRules: p.json<UploadRules>().nullable(),
    assignee: () => p.manyToOne(Recipient).ref().nullable(),
    verifiedAt: p.datetime().nullable(),
    // Removed items stay as rows, so an item.deleted event can still show the item.
    deletedAt: p.datetime().nullable(),
    ...timestamps(),
  },
});
export type RequestItem = InferEntity<typeof RequestItem>;
/** A RequestItem as read paths return it (see `Row`). */
export type RequestItemRow = Row<RequestItem>;
