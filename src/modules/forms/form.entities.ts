import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { timestamps, uuidPrimaryKey } from '../../kernel/db/entity-props';
import type { Row } from '../../kernel/db/db';
import { Organization, User } from '../identity/identity.entities';

/** One field of a form: what the recipient sees prefilled, and whether it may change it. */
export type FormField = { name: string; defaultValue: string | null; readOnly: boolean };

/**
 * A form as an item holds it: a copy of the form's name and fields, taken (with the item's own
 * changes) when the item was made, so deleting the form later leaves the item and its answers whole.
 */
export type ItemForm = { id: string; name: string; allowFileUpload: boolean; fields: FormField[] };

/** One answer of a filled form; an item keeps them in the order of its form's fields. */
export type FormAnswer = { field: string; value: string };

/** A named set of fields a template item or a request item asks its recipient to fill in (spec 2.6). */
export const Form = defineEntity({
  name: 'Form',
  tableName: 'form',
  properties: {
    id: uuidPrimaryKey(),
    organization: () => p.manyToOne(Organization).ref(),
    owner: () => p.manyToOne(User).ref(),
    name: p.string().length(255),
    // A list, not a map: jsonb does not keep the order of an object's keys, and the order is the form's.
    fields: p.json<FormField[]>(),
    allowFileUpload: p.boolean(),
    ...timestamps(),
  },
});
export type Form = InferEntity<typeof Form>;
/** A Form as read paths return it (see `Row`). */
export type FormRow = Row<Form>;
