import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { FormCreateInput, ItemFormInput } from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid, type FieldPath } from '../../kernel/validation/input-check';
import { OPEN_STATES, SUBMITTED_STATES } from '../requests/request.states';
import { Form, type FormAnswer, type FormField, type FormRow, type ItemForm } from './form.entities';
import { MAX_FORM_FIELD_NAME, MAX_FORM_FIELDS, MAX_FORM_NAME, MAX_FORM_VALUE } from './form.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer'>;

// Forms belong to the organization: any of its users may see, use and delete them. A form does not
// change once made (there is no update), and an item keeps its own copy (see ItemForm).

/** A field as an input gives it: the parts it sets (an item's change to a form's field may set either). */
type FieldInput = { name: string; defaultValue?: string | null; readOnly?: boolean };

/**
 * Reads a map of field names to `{defaultValue, readOnly}`, every problem reported at the field's
 * name (REST quotes it back as sent). Built from entries: a field named `__proto__` is a field like
 * any other, not the object's prototype.
 */
function readFieldMap(check: InputCheck, path: FieldPath, fields: unknown, min: number): FieldInput[] {
  if (fields == null && min === 0) return [];
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
    check.add(path, 'Input should map field names to {defaultValue, readOnly}', 'INVALID');
    return [];
  }
  const entries = Object.entries(fields as Record<string, unknown>);
  if (entries.length > MAX_FORM_FIELDS)
    check.add(path, `Object should have at most ${MAX_FORM_FIELDS} keys`, 'TOO_MANY');
  if (entries.length < min)
    check.add(path, `Object should have at least ${min} key${min === 1 ? '' : 's'}`, 'REQUIRED');
  const result: FieldInput[] = [];
  for (const [name, value] of entries.slice(0, MAX_FORM_FIELDS)) {
    const fieldPath = [...path, name];
    const problems = check.errors.length;
    check.text(fieldPath, name, { max: MAX_FORM_FIELD_NAME, min: 1 });
    // A name refused here is reported once, not again as a field the form lacks.
    if (check.errors.length > problems) continue;
    const field = value as { defaultValue?: unknown; readOnly?: unknown } | null;
    if (!field || typeof field !== 'object' || Array.isArray(field)) {
      check.add(fieldPath, 'Input should be an object {defaultValue, readOnly}', 'INVALID');
      continue;
    }
    if (field.defaultValue != null && typeof field.defaultValue !== 'string')
      check.add([...fieldPath, 'defaultValue'], 'Input should be a valid string', 'INVALID');
    else
      check.text([...fieldPath, 'defaultValue'], field.defaultValue as string | null | undefined, {
        max: MAX_FORM_VALUE,
      });
    if (field.readOnly != null && typeof field.readOnly !== 'boolean')
      check.add([...fieldPath, 'readOnly'], 'Input should be a valid boolean', 'INVALID');
    result.push({
      name,
      ...(field.defaultValue !== undefined && { defaultValue: field.defaultValue as string | null }),
      ...(field.readOnly != null && { readOnly: field.readOnly as boolean }),
    });
  }
  return result;
}

export async function createForm(ctx: Ctx, input: FormCreateInput): Promise<FormRow> {
  const check = new InputCheck();
  check.text(['name'], input.name, { max: MAX_FORM_NAME, min: 1, required: true });
  const fields = readFieldMap(check, ['fields'], input.fields, 1);
  check.done();
  const [form] = await ctx.db.transaction((tx) =>
    tx.insert(Form, [
      {
        organization: ctx.viewer.organizationId,
        owner: ctx.viewer.userId,
        name: input.name.trim(),
        fields: fields.map((f): FormField => ({
          name: f.name,
          defaultValue: f.defaultValue ?? null,
          readOnly: f.readOnly ?? false,
        })),
        allowFileUpload: input.allowFileUpload ?? false,
      },
    ]),
  );
  return form;
}

export async function getForm(ctx: Ctx, id: string): Promise<FormRow | null> {
  if (!isUuid(id)) return null;
  const [form] = await ctx.db.records(Form, 'select * from form where id = ? and organization_id = ? limit 1', [
    id,
    ctx.viewer.organizationId,
  ]);
  return form ?? null;
}

export async function requireForm(ctx: Ctx, id: string): Promise<FormRow> {
  const form = await getForm(ctx, id);
  if (!form) throw AppError.notFound('Form');
  return form;
}

export function listForms(ctx: Ctx, args: PageArgs): Promise<Connection<FormRow>> {
  return paginate(
    {
      db: ctx.db,
      entity: Form,
      sql: 'select f.* from form f where f.organization_id = ?',
      params: [ctx.viewer.organizationId],
    },
    args,
    { property: 'createdAt', column: 'created_at', direction: 'DESC' },
  );
}

/** States in which a request's recipient may still fill its forms, now or once the owner sends it back. */
const USING_STATES = [...OPEN_STATES, ...SUBMITTED_STATES];

/** Deletes a form, unless an item of a request still being filled in or reviewed uses it (422 invalid_state). */
export async function deleteForm(ctx: Ctx, id: string): Promise<string> {
  return ctx.db.transaction(async (tx) => {
    const form = await requireForm({ db: tx, viewer: ctx.viewer }, id);
    const [{ count }] = await tx.rows<{ count: string }>(
      `select count(distinct r.id) as count from request_item i join request r on r.id = i.request_id
        where i.form_id = ? and i.deleted_at is null and r.deleted_at is null and r.state = any(?::text[])`,
      [form.id, USING_STATES],
    );
    if (Number(count) > 0)
      throw AppError.invalidState(`${count} open request(s) use this form; close them or delete their items first`);
    await tx.execute('delete from form where id = ?', [form.id]);
    return id;
  });
}

/** Where an item input names a form, and what it changes of it. */
export type FormRef = { path: FieldPath; form: ItemFormInput | null | undefined };

/**
 * The copies of the forms that item inputs name (null where one names none), with each item's changes
 * applied: `allowFileUpload`, and per field its `defaultValue` or `readOnly`. A form not of the
 * viewer's organization, or a change to a field the form lacks, is reported on its path.
 */
export async function itemForms(ctx: Ctx, check: InputCheck, refs: FormRef[]): Promise<(ItemForm | null)[]> {
  const ids = [...new Set(refs.flatMap((ref) => (ref.form && isUuid(ref.form.id) ? [ref.form.id] : [])))];
  const forms = ids.length
    ? await ctx.db.records(Form, 'select * from form where id = any(?::uuid[]) and organization_id = ?', [
        ids,
        ctx.viewer.organizationId,
      ])
    : [];
  const byId = new Map(forms.map((form) => [form.id, form]));
  return refs.map(({ path, form: input }) => {
    if (!input) return null;
    const formPath = [...path, 'form'];
    check.uuid([...formPath, 'id'], input.id);
    const changes = readFieldMap(check, [...formPath, 'fields'], input.fields, 0);
    const form = byId.get(input.id);
    if (!form) {
      if (isUuid(input.id)) check.add([...formPath, 'id'], 'Names no form of your organization', 'NOT_FOUND');
      return null;
    }
    const names = new Set(form.fields.map((f) => f.name));
    for (const change of changes)
      if (!names.has(change.name))
        check.add([...formPath, 'fields', change.name], `The form "${form.name}" has no such field`, 'INVALID');
    const changeOf = new Map(changes.map((change) => [change.name, change]));
    return {
      id: form.id,
      name: form.name,
      allowFileUpload: input.allowFileUpload ?? form.allowFileUpload,
      fields: form.fields.map((field) => {
        const change = changeOf.get(field.name);
        return {
          name: field.name,
          defaultValue: change?.defaultValue !== undefined ? change.defaultValue : field.defaultValue,
          readOnly: change?.readOnly ?? field.readOnly,
        };
      }),
    };
  });
}

/**
 * A recipient's answers to an item's form, checked (fields of the form, strings within the limit, a
 * read-only field at most repeating its value) and completed in the form's order: a field left out
 * takes its default, a read-only field always its default.
 */
export function readAnswers(form: ItemForm, answers: unknown): FormAnswer[] {
  const check = new InputCheck();
  if (!answers || typeof answers !== 'object' || Array.isArray(answers)) {
    check.add(['answers'], 'Input should map field names to values', 'INVALID').done();
  }
  const given = new Map(Object.entries(answers as Record<string, unknown>));
  const fields = new Map(form.fields.map((field) => [field.name, field]));
  for (const [name, value] of given) {
    const field = fields.get(name);
    if (!field) check.add(['answers', name], 'The form has no such field', 'INVALID');
    else if (typeof value !== 'string') check.add(['answers', name], 'Input should be a valid string', 'INVALID');
    else if (field.readOnly && value !== (field.defaultValue ?? ''))
      check.add(['answers', name], 'This field is read-only', 'INVALID');
    else check.text(['answers', name], value, { max: MAX_FORM_VALUE });
  }
  check.done();
  return form.fields.map((field) => ({
    field: field.name,
    value: field.readOnly
      ? (field.defaultValue ?? '')
      : ((given.get(field.name) as string | undefined) ?? field.defaultValue ?? ''),
  }));
}

/** Answers as a map of field name to value (REST, and the zip's JSON file). */
export const answerMap = (answers: readonly FormAnswer[]): Record<string, string> =>
  Object.fromEntries(answers.map((a) => [a.field, a.value]));
