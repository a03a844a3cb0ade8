import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import { Organization, Team, User } from '../identity/identity.entities';
import { ITEM_TYPES, QUESTION_TYPES } from '../items/item.enums';
import { LANGUAGES } from '../requests/request.enums';
import type { Row } from '../../kernel/db/db';
import type { ItemForm } from '../forms/form.entities';
import type { UploadRules } from '../items/item.upload-rules';

export const Template = defineEntity({
  name: 'Template',
  tableName: 'template',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    team: () => p.manyToOne(Team).ref().nullable(),
    name: p.string().length(255),
    defaultTitle: p.string().length(255).nullable(),
    personalMessage: p.text().nullable(),
    reminders: p.integer(),
    dueDateInterval: p.integer().nullable(),
    language: p.enum([...LANGUAGES]),
    ...timestamps(),
  },
});
export type Template = InferEntity<typeof Template>;
/** A Template as read paths return it (see `Row`). */
export type TemplateRow = Row<Template>;

export const TemplateItem = defineEntity({
  name: 'TemplateItem',
  tableName: 'template_item',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    template: () => p.manyToOne(Template).ref(),
    position: p.integer(),
    type: p.enum([...ITEM_TYPES]),
    name: p.string().length(1000),
    description: p.text().nullable(),
    required: p.boolean(),
    received: p.boolean(),
    questionType: p.enum([...QUESTION_TYPES]).nullable(),
    answer: p.text().nullable(),
    // Its copy of a form (see ItemForm), copied again into each request item made from it.
    form: p.json<ItemForm>().nullable(),
    uploadRules: p.json<UploadRules>().nullable(),
    contractId: p.uuid().nullable(),
    createdAt: createdAt(),
  },
});
export type TemplateItem = InferEntity<typeof TemplateItem>;
/** A TemplateItem as read paths return it (see `Row`). */
export type TemplateItemRow = Row<TemplateItem>;
