import type { EntityManager, QueryBuilder } from '@mikro-orm/postgresql';
import { AppError } from '../../kernel/errors/app-error';
import type { GraphQLContext } from '../../kernel/graphql/context';
import type { TemplateCreateInput, TemplateItemInput, TemplateUpdateInput } from '../../generated/resolvers-types';
import { paginate, type Connection, type PageArgs } from '../../kernel/graphql/pagination';
import { InputCheck, isUuid } from '../../kernel/validation/input-check';
import { User } from '../identity/identity.entities';
import { isAdmin, type Viewer } from '../identity/viewer';
import { checkItemText, draftOf, type ItemDraft } from '../items/item.drafts';
import { DEFAULT_LANGUAGE, DEFAULT_REMINDERS } from '../requests/request.enums';
import { MAX_PERSONAL_MESSAGE, MAX_REMINDERS, MIN_REMINDERS } from '../requests/request.limits';
import type { RequestItemRow } from '../items/item.entities';
import { MAX_ANSWER } from '../items/item.limits';
import { itemForms } from '../forms/form.service';
import { Template, TemplateItem, type TemplateRow } from './template.entities';
import { MAX_DEFAULT_TITLE, MAX_DUE_DATE_INTERVAL, MAX_TEMPLATE_ITEMS, MAX_TEMPLATE_NAME } from './template.limits';
import { inTransaction } from '../../kernel/db/transaction';

type Ctx = Pick<GraphQLContext, 'em' | 'viewer'>;

export type TemplateItemDraft = ItemDraft & { received: boolean };

// Who sees a template: ADMIN every one of its organization; USER its own and its team's. Whoever
// sees one may change it.
function scopeTemplates<T extends object>(qb: QueryBuilder<T>, viewer: Viewer): QueryBuilder<T> {
  qb.andWhere({ organization: viewer.organizationId } as never);
  if (isAdmin(viewer)) return qb;
  if (viewer.teamId)
    qb.andWhere(`(${qb.alias}.owner_id = ? or ${qb.alias}.team_id = ?)`, [viewer.userId, viewer.teamId]);
  else qb.andWhere({ owner: viewer.userId } as never);
  return qb;
}

export async function getTemplate(ctx: Ctx, id: string): Promise<Template | null> {
  if (!isUuid(id)) return null;
  return scopeTemplates(
    ctx.em.createQueryBuilder(Template, 't').select('*').where({ id }),
    ctx.viewer,
  ).getSingleResult();
}

export async function requireTemplate(ctx: Ctx, id: string): Promise<Template> {
  const template = await getTemplate(ctx, id);
  if (!template) throw AppError.notFound('Template');
  return template;
}

export async function listTemplates(ctx: Ctx, args: PageArgs): Promise<Connection<TemplateRow>> {
  const qb = scopeTemplates(ctx.em.createQueryBuilder(Template, 't'), ctx.viewer);
  return paginate(qb, args, { property: 'createdAt', column: 'created_at', direction: 'DESC' });
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
  em: EntityManager,
  template: Template,
  drafts: TemplateItemDraft[],
): Promise<void> {
  await em.nativeDelete(TemplateItem, { template: template.id });
  drafts.forEach((draft, position) =>
    em.create(TemplateItem, { ...draft, organization: template.organization, template, position }),
  );
}

export async function createTemplate(ctx: Ctx, input: TemplateCreateInput): Promise<Template> {
  const check = new InputCheck();
  check.text(['name'], input.name, { max: MAX_TEMPLATE_NAME, min: 1, required: true });
  checkTemplateFields(check, input);
  const drafts = await templateItemDrafts(ctx, check, input.items ?? []);
  check.done();
  return inTransaction(ctx.em, async (tx) => {
    const owner = await tx.findOneOrFail(User, ctx.viewer.userId);
    const template = tx.create(Template, {
      organization: ctx.viewer.organizationId,
      owner,
      team: owner.team ?? null,
      name: input.name.trim(),
      defaultTitle: input.defaultTitle ?? null,
      personalMessage: input.personalMessage ?? null,
      reminders: input.reminders ?? DEFAULT_REMINDERS,
      dueDateInterval: input.dueDateInterval ?? null,
      language: input.language ?? DEFAULT_LANGUAGE,
    });
    drafts.forEach((draft, position) =>
      tx.create(TemplateItem, { ...draft, organization: template.organization, template, position }),
    );
    return template;
  });
}

export async function updateTemplate(ctx: Ctx, id: string, input: TemplateUpdateInput): Promise<Template> {
  const check = new InputCheck();
  checkTemplateFields(check, input);
  const drafts = input.items ? await templateItemDrafts(ctx, check, input.items) : null;
  for (const key of ['reminders', 'language'] as const) {
    if (input[key] === null) check.add([key], 'Cannot be null', 'INVALID');
  }
  check.done();
  return inTransaction(ctx.em, async (tx) => {
    const template = await requireTemplate({ em: tx, viewer: ctx.viewer }, id);
    if (input.name != null) template.name = input.name.trim();
    if (input.defaultTitle !== undefined) template.defaultTitle = input.defaultTitle;
    if (input.personalMessage !== undefined) template.personalMessage = input.personalMessage;
    if (input.reminders != null) template.reminders = input.reminders;
    if (input.dueDateInterval !== undefined) template.dueDateInterval = input.dueDateInterval;
    if (input.language != null) template.language = input.language;
    if (drafts) {
      await replaceTemplateItems(tx, template, drafts);
      template.updatedAt = new Date();
    }
    return template;
  });
}

export async function deleteTemplate(ctx: Ctx, id: string): Promise<string> {
  const template = await requireTemplate(ctx, id);
  await ctx.em.remove(template).flush();
  return id;
}

/** A template's items as drafts of request items (their order kept; received ones start COMPLETE). */
export async function templateItemsForRequest(
  em: EntityManager,
  template: Template,
): Promise<(ItemDraft & { received: boolean })[]> {
  const items = await em.find(TemplateItem, { template: template.id }, { orderBy: { position: 'asc' } });
  return items.map((item) => ({ ...draftOf(item), received: item.received }));
}

/** Request items saved into their template (`overwriteTemplateItems`). */
export const templateDraftsFromItems = (items: readonly RequestItemRow[]): TemplateItemDraft[] =>
  items.map((item) => ({ ...draftOf({ ...item, type: item.kind }), received: false }));
