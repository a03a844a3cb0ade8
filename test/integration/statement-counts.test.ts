import type { GraphQLField } from 'graphql';
import { client, createTenant, createTestApp, testConfig, type TestApp, type Tenant } from '../support/app';
import { submit } from '../support/documents';
import { createRequest, createTeam } from '../support/fixtures';
import { pdfBytes, upload } from '../support/files';
import { DEEP_SELECTION_ALIASES, deepSelection, forRecipient, reachableLists } from '../support/graphql-schema';
import { signedIn, tokenOf } from '../support/portal';
import { startReceiver } from '../support/receiver';
import { fillPath, pathParams, REST_ROWS, restNoun, rowName } from '../support/rest-rows';
import { ok, ROOT_ID_NOUNS, type WorldNoun } from '../support/world';
import { MAX_RECIPIENTS } from '../../src/modules/recipients/recipient.limits';
import { MAX_SCHEDULED_REMINDERS } from '../../src/modules/schedule/schedule.limits';
import { MAX_SHARE_RECIPIENTS } from '../../src/modules/shares/share.limits';

// A read must cost the same statements for 1, 20 or 100 records: one per kind of record it shows,
// never one per record. Lists grow their records, by-id reads their children; the rows and fields
// come from the route table and the schema, so a new one is measured (or fails) without an edit here.

const STAGES = [1, 20, 100] as const;

/**
 * What grows under each GET row as the data goes from 1 to 100 (its answer must grow with it), or
 * null for a row whose answer is one record without children. A new GET row must be named here.
 */
const GROWS: Record<string, string | null> = {
  'GET /whoami': null,
  'GET /users': 'users',
  'GET /users/:user_id': null,
  'GET /organizations/:org_id/users': 'users',
  'GET /teams': 'teams',
  'GET /teams/:team_id': null,
  'GET /requests': 'requests',
  'GET /requests/:request_id': 'items, recipients, collaborators, request attachments, escalation rules',
  'GET /organizations/:org_id/requests': 'requests',
  'GET /requests/:request_id/items': 'items, their attachments and documents',
  'GET /requests/:request_id/items/:item_id': null,
  'GET /templates': 'templates',
  'GET /templates/:id': 'template items',
  'GET /organizations/:org_id/templates': 'templates',
  'GET /contacts': 'contacts',
  'GET /organizations/:org_id/contacts': 'contacts',
  'GET /attachments': 'library attachments',
  'GET /attachments/:attachment_id': null,
  'GET /attachments/:attachment_id/download': null,
  'GET /requests/:request_id/items/:item_id/attachments': "the item's attachments",
  'GET /requests/:request_id/items/:item_id/attachments/:attachment_id': null,
  'GET /requests/:request_id/items/:item_id/attachments/:attachment_id/download': null,
  'GET /requests/:request_id/documents': 'documents',
  'GET /requests/:request_id/items/:item_id/documents': "the item's documents",
  'GET /requests/:request_id/items/:item_id/download': "the item's documents",
  'GET /requests/:request_id/download': 'documents (zip)',
  'GET /documents/:document_id': null,
  'GET /documents/:document_id/download': null,
  'GET /contracts': 'contracts',
  'GET /contracts/:contract_id': null,
  'GET /contracts/:contract_id/preview': null,
  'GET /forms': 'forms (their fields inside them)',
  'GET /forms/:form_id': null,
  'GET /webhooks': 'webhooks',
  'GET /webhooks/:id': null,
  'GET /webhooks/:id/secret': null,
  'GET /webhooks/:id/deliveries': 'deliveries with their attempts',
  'GET /notifications': 'invitations (one per request created, one per recipient of the subject)',
  'GET /organizations/:org_id/settings': null,
  'GET /organizations/:org_id/branding': null,
  'GET /requests/:request_id/activity': 'activity entries (one per document submitted)',
  'GET /requests/:request_id/reminders': 'reminders sent by hand, each to every recipient',
  'GET /requests/:request_id/scheduled-reminders': 'scheduled reminders (up to 20)',
  'GET /requests/:request_id/scheduled-reminders/:scheduled_reminder_id': null,
  'GET /requests/:request_id/escalations': 'escalation rules (up to 20)',
  'GET /requests/:request_id/escalations/:escalation_id': null,
  'GET /shares': 'shares, each with its recipients and files',
  'GET /shares/:share_id': 'recipients, files and downloads',
  'GET /cloud-storage': null,
  'GET /bulk-sends': 'bulk sends',
  'GET /bulk-sends/:id': null,
};

type Subjects = Partial<Record<WorldNoun, string>>;

/** Measured at one stage: statements and answer size per probe. */
type Measure = { count: number; statements: string[]; bytes: number };

const normalise = (statement: string) =>
  statement
    .replace(/\s+/g, ' ')
    .replace(/'[^']*'/g, '…')
    .slice(0, 160);

describe('statement counts: constant whether 1, 20 or 100 records', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let pdf: Buffer;
  const have = {
    users: 0,
    teams: 0,
    library: [] as string[],
    contracts: [] as string[],
    forms: [] as string[],
    webhooks: 0,
    templates: 0,
    requests: 0,
    shares: 0,
    bulkSends: [] as string[],
  };
  let team: string;
  let webhook: string;
  const rest: Record<string, Record<number, Measure>> = {};
  const graphql: Record<string, Record<number, Measure>> = {};
  const covered = new Set<string>();
  /** A session of the subject request's first recipient, for the recipient's root fields. */
  let recipientSession: ReturnType<typeof client>;

  /** Adds records until each kind has `n`, and a subject request and template whose children number `n`. */
  async function growTo(n: number): Promise<Subjects> {
    while (have.teams < n) team = await createTeam(t.app, tenant.apiKey, `Team ${++have.teams}`);
    while (have.users < n) {
      await api.graphql(`mutation ($input: UserCreateInput!) { userCreate(input: $input) { user { id } } }`, {
        input: { email: `user${++have.users}@example.com`, teamId: team },
      });
    }
    while (have.library.length < n)
      have.library.push(
        (
          await ok(
            await upload(t.app, tenant.apiKey, '/attachments', `guide ${have.library.length}`, {
              filename: 'guide.txt',
            }),
            'upload',
          )
        ).id,
      );
    while (have.contracts.length < n) {
      have.contracts.push(
        (await ok(await api.post('/contracts?name=c.pdf', pdf, { 'content-type': 'application/pdf' }), 'contract')).id,
      );
    }
    while (have.forms.length < n) {
      const fields = Object.fromEntries(
        Array.from({ length: 5 }, (_, i) => [`field ${i}`, { default_value: `value ${i}` }]),
      );
      have.forms.push((await ok(await api.post('/forms', { name: `Form ${have.forms.length}`, fields }), 'form')).id);
    }
    // One endpoint hears every request created (its deliveries grow with them); the others listen
    // for a topic nothing raises here.
    for (; have.webhooks < n; have.webhooks++) {
      const created = await ok(
        await api.post('/webhooks', {
          endpoint: receiver.url,
          topics: [webhook ? 'contract.signed' : 'request.created'],
        }),
        'webhook',
      );
      webhook ??= created.id;
    }
    while (have.templates < n - 1)
      await ok(
        await api.post('/templates', { name: `Template ${++have.templates}`, items: [{ name: 'A', type: 'UPLOAD' }] }),
        'template',
      );
    const template = await ok(
      await api.post('/templates', {
        name: `Subject ${n}`,
        items: Array.from({ length: n }, (_, i) => ({ name: `T${i}`, type: 'UPLOAD' })),
      }),
      'template',
    );
    while (have.requests < n - 1)
      await createRequest(t.app, tenant.apiKey, {
        name: `R${++have.requests}`,
        recipients: [{ email: `r${have.requests}@example.com` }],
      });

    // Users other than the owner: a collaborator who owns the request costs no lookup of its own.
    const collaborators = (await api.get('/users?limit=100'))
      .json()
      .map((u: { id: string }) => u.id)
      .filter((id: string) => id !== tenant.userId)
      .slice(0, Math.min(n, 20));
    const subject = await createRequest(t.app, tenant.apiKey, {
      name: `Subject ${n}`,
      template_id: template.id,
      overwrite_template_items: true,
      collaborators,
      attachment_ids: have.library.slice(0, n),
      recipients: Array.from({ length: Math.min(n, MAX_RECIPIENTS) }, (_, i) => ({
        email: `s${n}-${i}@example.com`,
        first_name: 'S',
      })),
      // One item of each kind from the first stage on, so growth adds records, never kinds.
      items: Array.from({ length: Math.max(n, 4) }, (_, i) => {
        const attachment_ids = i === 0 ? have.library.slice(0, n) : [have.library[i % have.library.length]];
        if (i % 3 === 1)
          return {
            type: 'E_SIGNATURE',
            name: `Sign ${i}`,
            contract_id: have.contracts[i % have.contracts.length],
            attachment_ids,
          };
        if (i % 3 === 2) return { type: 'QUESTION', name: `Question ${i}`, attachment_ids };
        // Upload items after the first (which takes the documents) ask for a form.
        if (i > 0)
          return { type: 'UPLOAD', name: `Form ${i}`, attachment_ids, form: { id: have.forms[i % have.forms.length] } };
        return { type: 'UPLOAD', name: `Upload ${i}`, attachment_ids };
      }),
    });
    const items = subject.items as Array<{ id: string; form: unknown }>;
    for (let i = 0; i < n; i++) await submit(t, tenant, subject.id, items[0].id, `document ${i}`, `doc${i}.txt`);
    for (const item of items.slice(1)) await submit(t, tenant, subject.id, item.id, 'document', 'doc.txt');
    // The forms filled in, so items show their answers (and the zip holds them).
    const filler = await signedIn(t.app, tokenOf(subject.recipients[0].request_link));
    for (const item of items.filter((i) => i.form)) {
      const filled = await t.app.inject({
        method: 'PUT',
        url: `${filler.base}/items/${item.id}/form`,
        payload: { answers: { 'field 1': 'answer' } },
        headers: { authorization: `Bearer ${filler.session}` },
      });
      if (filled.statusCode !== 200) throw new Error(`form fill answered ${filled.statusCode}: ${filled.body}`);
    }
    // Bulk sends of one row each, run below (their requests join the list of requests).
    while (have.bulkSends.length < n) {
      const sent = await api.post(`/templates/${template.id}/bulk-sends`, {
        rows: [{ email: `bulk${have.bulkSends.length}@example.com` }],
      });
      if (sent.statusCode !== 202) throw new Error(`bulk send answered ${sent.statusCode}: ${sent.body}`);
      have.bulkSends.push(sent.json().id);
    }
    // Every delivery gets an attempt, so the delivery list shows attempts too; messages are rendered (kept: no
    // SMTP_URL), so the list shows their texts.
    await t.app.jobs.runDue();

    const itemAttachment = (await api.get(`/requests/${subject.id}/items/${items[0].id}/attachments`)).json()[0].id;
    const document = (await api.get(`/requests/${subject.id}/items/${items[0].id}/documents`)).json()[0].id;
    const delivery = (await api.get(`/webhooks/${webhook}/deliveries?limit=1`)).json()[0].id;
    const scheduled: string[] = [];
    const escalations: string[] = [];
    for (let i = 0; i < n; i++) {
      await ok(await api.post(`/requests/${subject.id}/reminders`, {}), 'reminder');
      if (i >= MAX_SCHEDULED_REMINDERS) continue;
      scheduled.push(
        (
          await ok(
            await api.post(`/requests/${subject.id}/scheduled-reminders`, {
              send_at: new Date(Date.now() + (i + 1) * 86_400_000).toISOString(),
            }),
            'scheduled reminder',
          )
        ).id,
      );
      escalations.push(
        (
          await ok(
            await api.post(`/requests/${subject.id}/escalations`, { condition: 'NOT_OPENED', after_days: i + 1 }),
            'escalation',
          )
        ).id,
      );
    }
    // Shares: n in all, the subject's recipients, files and downloads n each.
    while (have.shares < n - 1) {
      await ok(
        await api.post('/shares', {
          title: `Share ${++have.shares}`,
          recipients: [{ email: `share${have.shares}@example.com` }],
        }),
        'share',
      );
    }
    const share = await ok(
      await api.post('/shares', {
        title: `Subject share ${n}`,
        recipients: Array.from({ length: Math.min(n, MAX_SHARE_RECIPIENTS) }, (_, i) => ({
          email: `sr${n}-${i}@example.com`,
        })),
      }),
      'share',
    );
    for (let i = 0; i < n; i++)
      await ok(
        await upload(t.app, tenant.apiKey, `/shares/${share.id}/files`, `shared ${i}`, { filename: `shared${i}.txt` }),
        'share file',
      );
    await ok(await api.post(`/shares/${share.id}/send`), 'share send');
    const shareToken = share.recipients[0].link.slice(share.recipients[0].link.lastIndexOf('/s/') + 3);
    const shareSession = (
      await ok(
        await t.app.inject({ method: 'POST', url: `/s/${shareToken}/api/session`, payload: {} }),
        'share sign-in',
      )
    ).session_token;
    const shared = (
      await ok(
        await t.app.inject({
          method: 'GET',
          url: `/s/${shareToken}/api/share`,
          headers: { authorization: `Bearer ${shareSession}` },
        }),
        'share view',
      )
    ).files;
    for (const file of shared)
      await t.app.inject({
        method: 'GET',
        url: file.download_url,
        headers: { authorization: `Bearer ${shareSession}` },
      });
    // Last, so every stage's activity page (newest first) holds a recipient's entry as well as users'.
    recipientSession = client(t.app, (await signedIn(t.app, tokenOf(subject.recipients[0].request_link))).session);
    return {
      organization: tenant.organizationId,
      user: tenant.userId,
      team,
      request: subject.id,
      item: items[0].id,
      itemAttachment,
      document,
      libraryAttachment: have.library[0],
      contract: have.contracts[0],
      form: have.forms[0],
      template: template.id,
      webhook,
      delivery,
      scheduledReminder: scheduled[0],
      escalation: escalations[0],
      share: share.id,
      bulkSend: have.bulkSends[0],
    };
  }

  async function measure(run: () => Promise<{ statusCode: number; body: string }>, what: string): Promise<Measure> {
    t.sql.reset();
    const response = await run();
    const statements = t.sql.statements.map(normalise);
    if (response.statusCode >= 300)
      throw new Error(`${what} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
    return { count: statements.length, statements, bytes: response.body.length };
  }

  const getRows = REST_ROWS.filter((row) => row.method === 'GET');
  const rootFields = () =>
    Object.values(t.app.graphql.schema.getQueryType()!.getFields()) as GraphQLField<unknown, unknown>[];

  beforeAll(async () => {
    t = await createTestApp({ graphql: { ...testConfig().graphql, maxAliases: DEEP_SELECTION_ALIASES } });
    receiver = await startReceiver();
    tenant = await createTenant(t.db);
    api = client(t.app, tenant.apiKey);
    pdf = await pdfBytes();
    for (const n of STAGES) {
      const subjects = await growTo(n);
      // The activity log (and other effects of the growth's events) is written by the events' consumers.
      await t.app.jobs.runDue();
      for (const row of getRows) {
        const params = pathParams(row.url);
        if (params.some((param) => !subjects[restNoun(row, param)!])) continue;
        const limited = (row.schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties
          ?.limit
          ? '?limit=100'
          : '';
        const url =
          fillPath(row.url, Object.fromEntries(params.map((param) => [param, subjects[restNoun(row, param)!]!]))) +
          limited;
        for (const revision of ['1', '2']) {
          const key = `${rowName(row)} (API-Revision ${revision})`;
          (rest[key] ??= {})[n] = await measure(() => api.get(url, { 'api-revision': revision }), key);
        }
      }
      for (const field of rootFields()) {
        const idArg = field.args.find((arg) => arg.name === 'id');
        if (idArg && !ROOT_ID_NOUNS[field.name]) continue;
        const args = [
          idArg ? `id: "${subjects[ROOT_ID_NOUNS[field.name]]}"` : '',
          field.args.some((arg) => arg.name === 'first') ? 'first: 100' : '',
        ]
          .filter(Boolean)
          .join(', ');
        const document = `{ ${field.name}${args ? `(${args})` : ''} ${deepSelection(t.app.graphql.schema, field.type, 6, covered)} }`;
        covered.add(`Query.${field.name}`);
        (graphql[field.name] ??= {})[n] = await measure(async () => {
          const response = await (forRecipient(field) ? recipientSession : api).post('/graphql', { query: document });
          const body = response.json();
          if (body.errors) return { statusCode: 500, body: JSON.stringify(body.errors) };
          return response;
        }, `Query.${field.name}`);
      }
    }
  }, 240_000);
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** Each probe whose statements changed between stages, with what changed. */
  function unsteady(measures: Record<string, Record<number, Measure>>): string[] {
    return Object.entries(measures).flatMap(([name, byStage]) => {
      const counts = STAGES.map((n) => byStage[n]?.count);
      if (new Set(counts).size === 1) return [];
      const tally = (statements: string[]) =>
        statements.reduce((map, s) => map.set(s, (map.get(s) ?? 0) + 1), new Map<string, number>());
      const [first, last] = [
        tally(byStage[STAGES[0]].statements),
        tally(byStage[STAGES[STAGES.length - 1]].statements),
      ];
      const grew = [...last]
        .filter(([statement, times]) => times > (first.get(statement) ?? 0))
        .map(([statement, times]) => `${times}x ${statement}`);
      return [
        `${name}: ${STAGES.map((n, i) => `${counts[i]} statements for ${n}`).join(', ')}; grew: ${grew.slice(0, 3).join(' | ')}`,
      ];
    });
  }

  it('should know what grows under every REST GET row, and find an id for each of its parameters', () => {
    const problems = getRows.flatMap((row) => [
      ...(rowName(row) in GROWS
        ? []
        : [
            `${rowName(row)}: say what grows under it in GROWS (test/integration/statement-counts.test.ts), and grow it in growTo`,
          ]),
      ...pathParams(row.url)
        .filter((param) => !restNoun(row, param))
        .map((param) => `${rowName(row)}: add an id for parameter ${param} (REST_NOUNS in test/support/rest-rows.ts)`),
      ...(rest[`${rowName(row)} (API-Revision 2)`]
        ? []
        : [`${rowName(row)}: was not measured (growTo returns no id for one of its parameters)`]),
    ]);
    expect(problems).toEqual([]);
    expect(Object.keys(GROWS).filter((name) => !getRows.some((row) => rowName(row) === name))).toEqual([]);
  });

  it('should run as many statements for 100 records as for 1 on every REST GET row', () => {
    expect(unsteady(rest)).toEqual([]);
  });

  it('should answer more as the data grows, on every row said to grow (so the counts above measured the growth)', () => {
    const flat = Object.entries(GROWS)
      .filter(([, grows]) => grows)
      .filter(
        ([name]) => !(rest[`${name} (API-Revision 2)`][100].bytes > 3 * rest[`${name} (API-Revision 2)`][1].bytes),
      )
      .map(
        ([name]) =>
          `${name}: ${rest[`${name} (API-Revision 2)`][1].bytes} bytes for 1, ${rest[`${name} (API-Revision 2)`][100].bytes} for 100`,
      );
    expect(flat).toEqual([]);
  });

  it('should measure every root query and every list and connection reachable from it', () => {
    const unmeasured = rootFields()
      .filter((field) => !graphql[field.name])
      .map((field) => `Query.${field.name}: give its id argument a noun in ROOT_ID_NOUNS`);
    const uncovered = reachableLists(t.app.graphql.schema).filter((list) => !covered.has(list));
    expect([...unmeasured, ...uncovered.map((list) => `${list}: no measured query selects it`)]).toEqual([]);
  });

  it('should run as many statements for 100 records as for 1 on every root query, everything under it selected', () => {
    expect(unsteady(graphql)).toEqual([]);
  });
});
