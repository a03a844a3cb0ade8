import { AppError } from '../../kernel/errors/app-error';
import type { RequestCreateInput, RequestDuplicateInput, RequestItemInput } from '../../generated/resolvers-types';
import { RequestItem } from '../items/item.entities';
import { Recipient } from '../recipients/recipient.entities';
import { requireVisibleRequest } from '../requests/request.access';
import { Collaborator } from '../requests/request.entities';
import { createRequest, type Ctx, type WrittenRequest } from '../requests/request.service';

/**
 * A new request made as the original was: its fields, items (without answers, documents or
 * verification) and recipients (new links, so new invitations), in the initial state of a request
 * created so, owned by the caller. Dates already past are left out (the future is required of them),
 * and a recipient who signs in with a security question cannot be copied: its answer is kept only
 * as a hash tied to that recipient.
 */
export async function duplicateRequest(
  ctx: Ctx,
  id: string,
  input: RequestDuplicateInput | null | undefined,
): Promise<WrittenRequest> {
  return ctx.db.transaction(async (tx) => {
    const original = await requireVisibleRequest(tx, ctx.viewer, id);
    const [items, recipients, collaborators] = await Promise.all([
      tx.records(
        RequestItem,
        'select * from request_item where request_id = ? and deleted_at is null order by position',
        [original.id],
      ),
      tx.records(Recipient, 'select * from recipient where request_id = ? order by position', [original.id]),
      tx.records(Collaborator, 'select * from collaborator where request_id = ? order by position', [original.id]),
    ]);
    const questioned = recipients.flatMap((recipient, index) =>
      recipient.authMethod === 'SECURITY_QUESTION' ? [index] : [],
    );
    if (questioned.length) {
      throw AppError.validation(
        questioned.map((index) => ({
          field: ['recipients', String(index)],
          message: 'Signs in with a security question whose answer is kept only as a hash: a copy could not ask it',
          code: 'INVALID' as const,
        })),
      );
    }
    const now = ctx.settings.clock.now().getTime();
    const ahead = (date: Date | null | undefined) => (date && date.getTime() > now ? date : null);
    const copy: RequestCreateInput = {
      name: input?.name ?? original.name,
      items: items.map((item): RequestItemInput => {
        const common = { name: item.name, description: item.description ?? null, required: item.required };
        if (item.kind === 'E_SIGNATURE') return { eSignature: { ...common, contractId: item.contractId ?? null } };
        if (item.kind === 'QUESTION') return { question: { ...common, questionType: item.questionType ?? null } };
        return { upload: common };
      }),
      recipients: recipients.map((recipient) => ({
        id: recipient.contact.id,
        firstName: recipient.firstName ?? null,
        lastName: recipient.lastName ?? null,
        email: recipient.email ?? null,
        phone: recipient.phone ?? null,
        language: recipient.language ?? null,
        authMethod: recipient.authMethod,
        sendMethod: recipient.sendMethod,
      })),
      dueDate: original.dueDate ?? null,
      expirationDate: ahead(original.expirationDate),
      autoCloseAt: ahead(original.autoCloseAt),
      firstReminderDate: ahead(original.firstReminderDate),
      personalMessage: original.personalMessage ?? null,
      notes: original.notes ?? null,
      userMetadata: original.userMetadata,
      language: original.language,
      reminders: original.reminders,
      reminderSchedule: original.reminderSchedule.flatMap((entry) =>
        ahead(new Date(entry.sendAt)) ? [{ sendAt: new Date(entry.sendAt), message: entry.message ?? null }] : [],
      ),
      collaborators: collaborators.map((collaborator) => ({ id: collaborator.user.id, role: collaborator.role })),
      cloudStorageFolder: original.cloudStorageFolder ?? null,
      cloudStorageProvider: original.cloudStorageProvider,
      requireCompleteSubmission: original.requireCompleteSubmission,
      disableSubmissionComments: original.disableSubmissionComments,
      teamId: original.team?.id ?? null,
      templateId: original.template?.id ?? null,
      mfaEnabled: original.mfaEnabled,
      skipInitialNotification: original.skipInitialNotification,
      draft: original.state === 'PRE_LINK_GENERATED',
    };
    return createRequest({ ...ctx, db: tx }, copy);
  });
}
