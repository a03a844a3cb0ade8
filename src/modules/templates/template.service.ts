import type { Reader, Tx, Values } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { TemplateCreateInput, TemplateItemInput, TemplateUpdateInput } from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { User } from '../identity/identity.entities';
import { isAdmin, type Viewer } from '../identity/viewer';
import { checkItemText, draftOf, type ItemDraft } from '../items/item.drafts';
import { checkUploadRules } from '../items/item.upload-rules';
import { DEFAULT_LANGUAGE, DEFAULT_REMINDERS } from '../requests/request.enums';
import { MAX_PERSONAL_MESSAGE, MAX_REMINDERS, MIN_REMINDERS } from '../requests/request.limits';
import type { RequestItemRow } from '../items/item.entities';
import { MAX_ANSWER } from '../items/item.limits';
import { itemForms } from '../forms/form.service';
import { Template, TemplateItem, type TemplateRow } from './template.entities';
import { MAX_DEFAULT_TITLE, MAX_DUE_DATE_INTERVAL, MAX_TEMPLATE_ITEMS, MAX_TEMPLATE_NAME } from './template.limits';

type Ctx = Pick<GraphQLContext, 'db' | 'viewer' | 'settings'>;

export type TemplateItemDraft = ItemDraft & { received: boolean };

// Who sees a template: ADMIN every one of its organization; USER its own and its team's. Whoever
// sees one may change it.
function templateVisibility(alias: string, viewer: Viewer): { sql: string; params: unknown[] } {
  if (isAdmin(viewer)) return { sql: `${alias}.organization_id = ?`, params: [viewer.organizationId] };
  if (viewer.teamId)
    return {
      sql: `${alias}.organization_id = ? and (${alias}.owner_id = ? or ${alias}.team_id = ?)`,
      params: [viewer.organizationId, viewer.userId, viewer.teamId],
    };
  return {
    sql: `${alias}.organization_id = ? and ${alias}.owner_id = ?`,
    params: [viewer.organizationId, viewer.userId],
  };
}

export async function getTemplate(ctx: Ctx, id: string): Promise<TemplateRow | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = templateVisibility('t', ctx.viewer);
  const [template] = await ctx.db.records(Template, `select t.* from template t where t.id = ? and ${sql} limit 1`, [
    id,
    ...params,
  ]);
  return template ?? null;
}

export async function requireTemplate(ctx: Ctx, id: string): Promise<TemplateRow> {
  const template = await getTemplate(ctx, id);
  if (!template) throw AppError.notFound('Template');
  return template;
}

export async function listTemplates(ctx: Ctx, args: PageArgs): Promise<Connection<TemplateRow>> {
  const { sql, params } = templateVisibility('t', ctx.viewer);
  return paginate({ db: ctx.db, entity: Template, sql: `select t.* from template t where ${sql}`, params }, args, {
    property: 'createdAt',
    column: 'created_at',
    direction: 'DESC',
  });
}

async function templateItemDrafts(
  ctx: Ctx,
  check: InputCheck,
  items: TemplateItemInput[],
): Promise<TemplateItemDraft[]> {
  check.count(['items'], items, { max: MAX_TEMPLATE_ITEMS });
  const forms = await itemForms(
    ctx,
    check,
    items.map((item, index) => ({ path: ['items', index], form: item.form })),
  );
  return items.map((item, index) => {
    const path = ['items', index];
    checkItemText(check, path, { name: item.name, description: item.description }, true);
    check.text([...path, 'question', 'answer'], item.question?.answer, { max: MAX_ANSWER });
    const question = item.kind === 'QUESTION';
    if (item.form && item.kind !== 'UPLOAD')
      check.add([...path, 'form'], 'Only an UPLOAD item takes a form', 'INVALID');
    if (item.uploadRules && item.kind !== 'UPLOAD')
      check.add([...path, 'uploadRules'], 'Only an UPLOAD item takes upload rules', 'INVALID');
    return {
      type: item.kind,
      name: item.name.trim(),
      description: item.description ?? null,
      required: item.required ?? false,
      received: item.received ?? false,
      questionType: question ? (item.question?.type ?? 'TEXT') : null,
      answer: question ? (item.question?.answer ?? null) : null,
      contractId: null,
      form: forms[index],
      uploadRules: checkUploadRules(check, [...path, 'uploadRules'], item.uploadRules, ctx.settings),
    };
  });
}

function checkTemplateFields(check: InputCheck, input: TemplateCreateInput | TemplateUpdateInput) {
  check
    .text(['name'], input.name, { max: MAX_TEMPLATE_NAME, min: 1 })
    .text(['defaultTitle'], input.defaultTitle, { max: MAX_DEFAULT_TITLE })
    .text(['personalMessage'], input.personalMessage, { max: MAX_PERSONAL_MESSAGE })
    .int(['reminders'], input.reminders, { min: MIN_REMINDERS, max: MAX_REMINDERS })
    .int(['dueDateInterval'], input.dueDateInterval, { min: 0, max: MAX_DUE_DATE_INTERVAL });
  if (input.name === null) check.add(['name'], 'Cannot be null', 'INVALID');
}

/** Replaces a template's items with `drafts`, in order. */
export async function replaceTemplateItems(
  tx: Tx,
  template: { readonly id: string; readonly organization: { readonly id: string } },
  drafts: TemplateItemDraft[],
): Promise<void> {
  await tx.execute('delete from template_item where template_id = ?', [template.id]);
  await insertTemplateItems(tx, template, drafts);
}

function insertTemplateItems(
  tx: Tx,
  template: { readonly id: string; readonly organization: { readonly id: string } },
  drafts: TemplateItemDraft[],
) {
  return tx.insert(
    TemplateItem,
    drafts.map((draft, position) => ({
      ...draft,
      organization: template.organization,
      template: template.id,
      position,
    })),
  );
}

export async function createTemplate(ctx: Ctx, input: TemplateCreateInput): Promise<TemplateRow> {
  const check = new InputCheck();
  check.text(['name'], input.name, { max: MAX_TEMPLATE_NAME, min: 1, required: true });
  checkTemplateFields(check, input);
  const drafts = await templateItemDrafts(ctx, check, input.items ?? []);
  check.done();
  return ctx.db.transaction(async (tx) => {
    const [owner] = await tx.records(User, 'select * from app_user where id = ?', [ctx.viewer.userId]);
    if (!owner) throw new Error(`User ${ctx.viewer.userId} not found`);
    const [template] = await tx.insert(Template, [
      {
        organization: ctx.viewer.organizationId,
        owner: owner.id,
        team: owner.team ?? null,
        name: input.name.trim(),
        defaultTitle: input.defaultTitle ?? null,
        personalMessage: input.personalMessage ?? null,
        reminders: input.reminders ?? DEFAULT_REMINDERS,
        dueDateInterval: input.dueDateInterval ?? null,
        language: input.language ?? DEFAULT_LANGUAGE,
      },
    ]);
    await insertTemplateItems(tx, template, drafts);
    return template;
  });
}

export async function updateTemplate(ctx: Ctx, id: string, input: TemplateUpdateInput): Promise<TemplateRow> {
  const check = new InputCheck();
  checkTemplateFields(check, input);
  const drafts = input.items ? await templateItemDrafts(ctx, check, input.items) : null;
  for (const key of ['reminders', 'language'] as const) {
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  }
  check.done();
  return ctx.db.transaction(async (tx) => {
    const template = await requireTemplate({ ...ctx, db: tx }, id);
    // Only what differs is written; new items count as a change (`updatedAt` moves only with one).
    const changes: Values<Template> = {};
    const change = <K extends keyof Template>(key: K, value: Template[K] | undefined) => {
      if (value !== undefined && value !== template[key]) changes[key] = value;
    };
    if (input.name != null) change('name', input.name.trim());
    if (input.defaultTitle !== undefined) change('defaultTitle', input.defaultTitle);
    if (input.personalMessage !== undefined) change('personalMessage', input.personalMessage);
    if (input.reminders != null) change('reminders', input.reminders);
    if (input.dueDateInterval !== undefined) change('dueDateInterval', input.dueDateInterval);
    if (input.language != null) change('language', input.language);
    if (drafts) await replaceTemplateItems(tx, template, drafts);
    return drafts || Object.keys(changes).length ? tx.update(Template, template.id, changes) : template;
  });
}

export async function deleteTemplate(ctx: Ctx, id: string): Promise<string> {
  const template = await requireTemplate(ctx, id);
  await ctx.db.transaction((tx) => tx.execute('delete from template where id = ?', [template.id]));
  return id;
}

/** A template's items as drafts of request items (their order kept; received ones start COMPLETE). */
export async function templateItemsForRequest(
  db: Reader,
  template: { readonly id: string },
): Promise<(ItemDraft & { received: boolean })[]> {
  const items = await db.records(TemplateItem, 'select * from template_item where template_id = ? order by position', [
    template.id,
  ]);
  return items.map((item) => ({ ...draftOf(item), received: item.received }));
}

/** Request items saved into their template (`overwriteTemplateItems`). */
export const templateDraftsFromItems = (items: readonly RequestItemRow[]): TemplateItemDraft[] =>
  items.map((item) => ({ ...draftOf({ ...item, type: item.kind }), received: false }));
