import { signedIn, tokenOf } from './portal';
import { client, type TestApp, type Tenant } from './app';
import { submit } from './documents';
import { createRequest, createTeam, createUser } from './fixtures';
import { createContract, pdfBytes, upload } from './files';

/**
 * One record of every noun of an organization, by noun. The guard tests look ids up here by name,
 * so a noun a new module adds is one entry to add.
 */
export type World = {
  organization: string;
  admin: string;
  user: string;
  team: string;
  apiKey: string;
  template: string;
  contract: string;
  form: string;
  /** A file of the admin's library. */
  libraryAttachment: string;
  request: string;
  /** The request's UPLOAD item, which holds the item attachment and the document. */
  item: string;
  /** The request's E_SIGNATURE item (names the contract). */
  signatureItem: string;
  questionItem: string;
  /** The request's recipient (its own record, not the contact). */
  recipient: string;
  /** Attached to `item` (copied from the library at creation). */
  itemAttachment: string;
  document: string;
  /** A recipient of the request, as a contact of the admin. */
  contact: string;
  webhook: string;
  /** The delivery of the request's `request.created` event to `webhook`. */
  delivery: string;
  /** The invitation of the request's recipient. */
  notification: string;
  /** The request's latest activity entry (the document's upload). */
  activity: string;
  /** A reminder sent to the request's recipient, a reminder scheduled for it, and an escalation rule. */
  reminder: string;
  scheduledReminder: string;
  escalation: string;
  /** A share sent to one recipient, with one file, and its recipient's download of it. */
  share: string;
  shareDownload: string;
  /** A bulk send of the template to one recipient, run. */
  bulkSend: string;
  /** A key that may act as the organization's admin (the tenant's own). */
  adminKey: string;
  /** A portal session of the request's recipient (for the recipient operations). */
  recipientSession: string;
};

/** A kind of record the world holds one of. */
export type WorldNoun = Exclude<keyof World, 'adminKey' | 'recipientSession'>;

/** The id arguments of root queries, by the noun they take. */
export const ROOT_ID_NOUNS: Record<string, WorldNoun> = {
  node: 'request',
  attachment: 'libraryAttachment',
  contract: 'contract',
  form: 'form',
  document: 'document',
  user: 'user',
  team: 'team',
  request: 'request',
  template: 'template',
  webhook: 'webhook',
  webhookSecret: 'webhook',
  share: 'share',
  bulkSend: 'bulkSend',
};

export async function ok<T = any>(
  response: { statusCode: number; body: string; json(): any },
  what: string,
): Promise<T> {
  if (response.statusCode !== 200) throw new Error(`${what} answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

/** Builds one record of every noun in the tenant's organization, through the API as a client would. */
export async function buildWorld(t: TestApp, tenant: Tenant, receiverUrl: string, label: string): Promise<World> {
  const api = client(t.app, tenant.apiKey);
  const team = await createTeam(t.app, tenant.apiKey, `${label} team`);
  const member = await createUser(t.app, tenant.apiKey, {
    email: `member-${tenant.organizationId}@${label.toLowerCase()}.test`,
    teamId: team,
  });
  const key = await api.graphql(
    `mutation ($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) { apiKey { id } } }`,
    { input: { userId: member.userId, name: 'world' } },
  );
  const template = await ok(
    await api.post('/templates', { name: `${label} template`, items: [{ name: 'A', type: 'UPLOAD' }] }),
    'POST /templates',
  );
  const contract = await createContract(t.app, tenant.apiKey);
  const form = await ok(await api.post('/forms', { name: `${label} form`, fields: { name: {} } }), 'POST /forms');
  const libraryAttachment = await ok(
    await upload(t.app, tenant.apiKey, '/attachments', await pdfBytes('Guide'), { filename: 'Guide.pdf' }),
    'POST /attachments',
  );
  // Subscribed before the request exists, so its creation queues one delivery.
  const webhook = await ok(
    await api.post('/webhooks', { endpoint: receiverUrl, topics: ['request.created'] }),
    'POST /webhooks',
  );
  const request = await createRequest(t.app, tenant.apiKey, {
    name: `${label} request`,
    template_id: template.id,
    team_id: team,
    collaborators: [member.userId],
    items: [
      { type: 'UPLOAD', name: 'W-2', attachment_ids: [libraryAttachment.id] },
      { type: 'E_SIGNATURE', name: 'Sign', contract_id: contract.id },
      { type: 'QUESTION', name: 'Dependents?' },
    ],
  });
  const [item, signatureItem, questionItem] = request.items as Array<{ id: string }>;
  const recipients = await api.graphql(`query ($id: ID!) { request(id: $id) { recipients { id } } }`, {
    id: request.id,
  });
  const itemAttachments = await ok<Array<{ id: string }>>(
    await api.get(`/requests/${request.id}/items/${item.id}/attachments`),
    'item attachments',
  );
  const document = await submit(t, tenant, request.id, item.id, 'submitted bytes', 'w2.txt');
  // The events' consumers queue the delivery, the invitation and the activity entries the lists show.
  await t.app.jobs.runDue();
  const deliveries = await ok<Array<{ id: string }>>(await api.get(`/webhooks/${webhook.id}/deliveries`), 'deliveries');
  const notifications = await ok<Array<{ id: string }>>(
    await api.get(`/notifications?request_id=${request.id}`),
    'notifications',
  );
  const activity = await ok<Array<{ id: string }>>(
    await api.get(`/requests/${request.id}/activity?limit=1`),
    'activity',
  );
  if (deliveries.length !== 1 || itemAttachments.length !== 1 || notifications.length !== 1 || activity.length !== 1)
    throw new Error('the world was not built as expected');
  // After the lists above, whose single entries they would otherwise join.
  const reminder = await ok(await api.post(`/requests/${request.id}/reminders`, {}), 'POST reminders');
  const scheduledReminder = await ok(
    await api.post(`/requests/${request.id}/scheduled-reminders`, {
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    }),
    'POST scheduled-reminders',
  );
  const escalation = await ok(
    await api.post(`/requests/${request.id}/escalations`, { condition: 'NOT_OPENED', after_days: 3 }),
    'POST escalations',
  );
  const share = await ok(
    await api.post('/shares', { title: `${label} share`, recipients: [{ email: 'share@example.com' }] }),
    'POST /shares',
  );
  await ok(
    await upload(t.app, tenant.apiKey, `/shares/${share.id}/files`, 'shared bytes', { filename: 'shared.txt' }),
    'POST /shares/:id/files',
  );
  await ok(await api.post(`/shares/${share.id}/send`), 'POST /shares/:id/send');
  const shareApi = `/s/${share.recipients[0].link.slice(share.recipients[0].link.lastIndexOf('/s/') + 3)}/api`;
  const shareSession = {
    authorization: `Bearer ${(await ok(await t.app.inject({ method: 'POST', url: `${shareApi}/session`, payload: {} }), 'share sign-in')).session_token}`,
  };
  const [sharedFile] = (
    await ok(await t.app.inject({ method: 'GET', url: `${shareApi}/share`, headers: shareSession }), 'share view')
  ).files;
  const downloaded = await t.app.inject({ method: 'GET', url: sharedFile.download_url, headers: shareSession });
  if (downloaded.statusCode !== 200) throw new Error(`share download answered ${downloaded.statusCode}`);
  const [shareDownload] = (await ok(await api.get(`/shares/${share.id}`), 'GET /shares/:id')).downloads;
  const bulkSend = await api.post(`/templates/${template.id}/bulk-sends`, { rows: [{ email: 'bulk@example.com' }] });
  if (bulkSend.statusCode !== 202) throw new Error(`POST bulk-sends answered ${bulkSend.statusCode}: ${bulkSend.body}`);
  await t.app.jobs.runDue();
  return {
    organization: tenant.organizationId,
    admin: tenant.userId,
    user: member.userId,
    team,
    apiKey: key.data.apiKeyCreate.apiKey.id,
    template: template.id,
    contract: contract.id,
    form: form.id,
    libraryAttachment: libraryAttachment.id,
    request: request.id,
    item: item.id,
    signatureItem: signatureItem.id,
    questionItem: questionItem.id,
    recipient: recipients.data.request.recipients[0].id,
    itemAttachment: itemAttachments[0].id,
    document: document.id,
    contact: request.recipients[0].recipient.id,
    webhook: webhook.id,
    delivery: deliveries[0].id,
    notification: notifications[0].id,
    activity: activity[0].id,
    reminder: reminder.id,
    scheduledReminder: scheduledReminder.id,
    escalation: escalation.id,
    share: share.id,
    shareDownload: shareDownload.id,
    bulkSend: bulkSend.json().id,
    adminKey: tenant.apiKey,
    recipientSession: (await signedIn(t.app, tokenOf(request.recipients[0].request_link))).session,
  };
}
