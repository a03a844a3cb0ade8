import { getNullableType, type GraphQLField, type GraphQLInterfaceType, type GraphQLSchema } from 'graphql';
import {
  client,
  createTenant,
  createTestApp,
  sessionHeaders,
  testConfig,
  type TestApp,
  type Tenant,
} from '../support/app';
import {
  answerSelection,
  fieldDocument,
  forRecipient,
  idPositions,
  minimalValue,
  positionName,
  setAt,
  userErrorPath,
  type IdPosition,
} from '../support/graphql-schema';
import { fillPath, minimalPayload, pathParams, REST_ROWS, restNoun, rowName } from '../support/rest-rows';
import { startReceiver } from '../support/receiver';
import { snapshotAll } from '../support/snapshot';
import { buildWorld, type World, type WorldNoun } from '../support/world';

// Generated from the route table and the schema: a by-id REST row or an id-taking GraphQL field
// that this file cannot fill fails it, so no new module ships without its cross-tenant check.

type Noun = WorldNoun;

/** The name a not-found answer gives each noun (`"Request not found"`). */
const NOT_FOUND_NAME: Record<Noun, string> = {
  organization: 'Organization',
  admin: 'User',
  user: 'User',
  team: 'Team',
  apiKey: 'API key',
  template: 'Template',
  contract: 'Contract',
  form: 'Form',
  libraryAttachment: 'Attachment',
  request: 'Request',
  item: 'Item',
  signatureItem: 'Item',
  questionItem: 'Item',
  recipient: 'Recipient',
  itemAttachment: 'Attachment',
  document: 'Document',
  contact: 'Contact',
  webhook: 'Webhook',
  delivery: 'Delivery',
  notification: 'Notification',
  activity: 'Activity',
  reminder: 'Reminder',
  scheduledReminder: 'Scheduled reminder',
  escalation: 'Escalation',
  share: 'Share',
  shareDownload: 'Download',
  bulkSend: 'Bulk send',
};

/** Bodies the row's schema cannot give (none today: every required body field is a plain value). */
const REST_BODY_OVERRIDES: Record<string, unknown> = {};

/**
 * Path parameters that name no record but a thing every organization has its own of (a cloud storage
 * provider): the organization is the caller's, from its key. Their rows are probed below with Acme's
 * thing set up, as Globex, and must leave Acme's unchanged.
 */
const NAMED_PARAMS: Record<string, string> = { provider: 'S3' };

/** The nouns whose ids each GraphQL id position takes. */
const GRAPHQL_NOUNS: Record<string, Noun[]> = {
  'Query.node(id)': [
    'organization',
    'admin',
    'user',
    'team',
    'apiKey',
    'template',
    'contract',
    'form',
    'libraryAttachment',
    'request',
    'item',
    'signatureItem',
    'questionItem',
    'recipient',
    'itemAttachment',
    'document',
    'contact',
    'webhook',
    'delivery',
    'notification',
    'activity',
    'reminder',
    'share',
    'shareDownload',
    'bulkSend',
  ],
  'Query.attachment(id)': ['libraryAttachment', 'itemAttachment'],
  'Query.contract(id)': ['contract'],
  'Query.form(id)': ['form'],
  'Query.document(id)': ['document'],
  'Query.user(id)': ['admin', 'user'],
  'Query.team(id)': ['team'],
  'Query.request(id)': ['request'],
  'Query.requests(filter.ownerIds)': ['admin'],
  'Query.requests(filter.teamIds)': ['team'],
  'Query.requests(filter.templateIds)': ['template'],
  'Query.template(id)': ['template'],
  'Query.bulkSend(id)': ['bulkSend'],
  'Mutation.bulkSendCreate(input.templateId)': ['template'],
  'Query.webhook(id)': ['webhook'],
  'Query.webhookSecret(id)': ['webhook'],
  'Query.notifications(requestId)': ['request'],
  'Query.requestEvents(requestId)': ['request'],
  'Mutation.attachmentDelete(id)': ['libraryAttachment', 'itemAttachment'],
  'Mutation.attachmentDelete(requestId)': ['request'],
  'Mutation.attachmentDelete(itemId)': ['item'],
  'Mutation.contractUpdate(id)': ['contract'],
  'Mutation.contractDelete(id)': ['contract'],
  'Mutation.formDelete(id)': ['form'],
  'Mutation.documentDelete(id)': ['document'],
  'Mutation.requestDocumentsDelete(requestId)': ['request'],
  'Mutation.userCreate(input.teamId)': ['team'],
  'Mutation.userUpdate(id)': ['user', 'admin'],
  'Mutation.userUpdate(input.teamId)': ['team'],
  'Mutation.apiKeyCreate(input.userId)': ['user', 'admin'],
  'Mutation.apiKeyRevoke(id)': ['apiKey'],
  'Mutation.itemCreate(requestId)': ['request'],
  'Mutation.itemCreate(input.upload.attachmentIds)': ['libraryAttachment', 'itemAttachment'],
  'Mutation.itemCreate(input.upload.form.id)': ['form'],
  'Mutation.itemCreate(input.eSignature.contractId)': ['contract'],
  'Mutation.itemCreate(input.eSignature.attachmentIds)': ['libraryAttachment'],
  'Mutation.itemCreate(input.question.attachmentIds)': ['libraryAttachment'],
  'Mutation.itemUpdate(id)': ['item'],
  'Mutation.itemUpdate(requestId)': ['request'],
  'Mutation.itemDelete(id)': ['item'],
  'Mutation.itemDelete(requestId)': ['request'],
  'Mutation.itemVerify(id)': ['item'],
  'Mutation.itemVerify(requestId)': ['request'],
  'Mutation.requestCreate(input.items.upload.attachmentIds)': ['libraryAttachment'],
  'Mutation.requestCreate(input.items.upload.form.id)': ['form'],
  'Mutation.requestCreate(input.items.eSignature.contractId)': ['contract'],
  'Mutation.requestCreate(input.items.eSignature.attachmentIds)': ['libraryAttachment'],
  'Mutation.requestCreate(input.items.question.attachmentIds)': ['libraryAttachment'],
  'Mutation.requestCreate(input.recipients.id)': ['contact'],
  'Mutation.requestCreate(input.collaborators.id)': ['user'],
  'Mutation.requestCreate(input.ownerId)': ['user'],
  'Mutation.requestCreate(input.teamId)': ['team'],
  'Mutation.requestCreate(input.templateId)': ['template'],
  'Mutation.requestCreate(input.attachmentIds)': ['libraryAttachment', 'itemAttachment'],
  'Mutation.requestCreate(input.escalations.notifyUserId)': ['admin', 'user'],
  'Mutation.requestUpdate(id)': ['request'],
  'Mutation.requestUpdate(input.collaborators.id)': ['user'],
  'Mutation.requestUpdate(input.escalations.notifyUserId)': ['admin', 'user'],
  'Mutation.requestDelete(id)': ['request'],
  'Mutation.requestClose(id)': ['request'],
  'Mutation.requestSend(id)': ['request'],
  'Mutation.requestVerify(id)': ['request'],
  'Mutation.requestReject(id)': ['request'],
  'Mutation.requestReject(input.itemIds)': ['item'],
  'Mutation.recipientLinkRegenerate(id)': ['recipient'],
  'Mutation.recipientLinkRegenerate(requestId)': ['request'],
  'Mutation.templateCreate(input.items.form.id)': ['form'],
  'Mutation.templateUpdate(id)': ['template'],
  'Mutation.templateUpdate(input.items.form.id)': ['form'],
  'Mutation.templateDelete(id)': ['template'],
  'Mutation.webhookUpdate(id)': ['webhook'],
  'Mutation.webhookDelete(id)': ['webhook'],
  'Mutation.webhookSecretRotate(id)': ['webhook'],
  'Mutation.webhookDeliveryRetry(id)': ['delivery'],
  'Mutation.webhookDeliveryRetry(webhookId)': ['webhook'],
  'Mutation.organizationSettingsUpdate(id)': ['organization'],
  'Mutation.brandingUpdate(id)': ['organization'],
  'Mutation.confirmationPageEnable(id)': ['organization'],
  'Mutation.confirmationPageDisable(id)': ['organization'],
  'Mutation.recipientAnswer(input.itemId)': ['questionItem'],
  'Mutation.recipientNotApplicable(input.itemId)': ['questionItem'],
  'Mutation.recipientFormFill(input.itemId)': ['item'],
  'Mutation.recipientSign(input.itemId)': ['signatureItem'],
  'Mutation.recipientDocumentDelete(input.documentId)': ['document'],
  'Mutation.recipientDocumentDelete(input.itemId)': ['item'],
  'Mutation.reminderSend(requestId)': ['request'],
  'Mutation.scheduledReminderCreate(requestId)': ['request'],
  'Mutation.scheduledReminderUpdate(requestId)': ['request'],
  'Mutation.scheduledReminderUpdate(id)': ['scheduledReminder'],
  'Mutation.scheduledReminderDelete(requestId)': ['request'],
  'Mutation.scheduledReminderDelete(id)': ['scheduledReminder'],
  'Mutation.escalationCreate(requestId)': ['request'],
  'Mutation.escalationCreate(input.notifyUserId)': ['admin', 'user'],
  'Mutation.escalationUpdate(requestId)': ['request'],
  'Mutation.escalationUpdate(id)': ['escalation'],
  'Mutation.escalationUpdate(input.notifyUserId)': ['admin', 'user'],
  'Mutation.escalationDelete(requestId)': ['request'],
  'Mutation.escalationDelete(id)': ['escalation'],
  'Mutation.requestDuplicate(id)': ['request'],
  'Query.share(id)': ['share'],
  'Mutation.shareUpdate(id)': ['share'],
  'Mutation.shareSend(id)': ['share'],
  'Mutation.shareDelete(id)': ['share'],
};

/** Arguments whose smallest schema-valid value the service would refuse for reasons other than tenancy. */
const GRAPHQL_ARG_OVERRIDES: Record<string, Record<string, unknown>> = {
  requestCreate: {
    input: { name: 'Probe', items: [{ upload: { name: 'Probe' } }], recipients: [{ email: 'probe@example.com' }] },
  },
  itemCreate: { input: { upload: { name: 'Probe' } } },
  userCreate: { input: { email: 'probe@globex.test' } },
  escalationCreate: { input: { condition: 'OVERDUE', afterDays: 3 } },
  bulkSendCreate: { input: { rows: [{ email: 'probe@example.com' }] } },
};

/** Ids inside an input that are refused as a missing record (top-level NOT_FOUND) rather than a user error, and why. */
const NOT_FOUND_INPUTS: Record<string, string> = {
  'Mutation.requestCreate(input.templateId)':
    'docs/rest.md, tenancy: a template_id the caller cannot see is 404 Template not found',
  'Mutation.bulkSendCreate(input.templateId)':
    'docs/rest.md, bulk sends: as for a request, a template the caller cannot see is 404 Template not found',
  'Mutation.recipientAnswer(input.itemId)':
    "a recipient acts on its request's items only: another's is 404 Item not found",
  'Mutation.recipientNotApplicable(input.itemId)':
    "a recipient acts on its request's items only: another's is 404 Item not found",
  'Mutation.recipientFormFill(input.itemId)':
    "a recipient fills its request's forms only: another's item is 404 Item not found",
  'Mutation.recipientSign(input.itemId)': "a recipient signs its request's items only: another's is 404 Item not found",
  'Mutation.recipientDocumentDelete(input.documentId)':
    "a recipient deletes its own documents only: another's is 404 Document not found",
  'Mutation.recipientDocumentDelete(input.itemId)':
    "a recipient deletes its own documents only: another's is 404 Document not found",
};

/**
 * How Globex's admin calls: with its API key, or signed in in a browser (its session cookie, from the service's own
 * origin). Every probe runs with both.
 */
const CREDENTIALS = ['API key', 'session'] as const;
type CredentialKind = (typeof CREDENTIALS)[number];

/**
 * A session's own bookkeeping, which any call with it may write (its idle end, moved at most once a minute): not a
 * change of the tenant's data.
 */
const SESSION_TABLES = ['user_session'];

describe('tenancy matrix: an admin of Globex and every id of Acme', () => {
  let t: TestApp;
  let acme: World;
  let globex: World;
  let globexTenant: Tenant;
  let globexSession: Record<string, string>;
  const credentialHeaders = (kind: CredentialKind): Record<string, string> =>
    kind === 'session' ? globexSession : { authorization: `Bearer ${globex.adminKey}` };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let schema: GraphQLSchema;

  beforeAll(async () => {
    // One document asks node(id) for every kind of record at once: more aliases than the default allows.
    t = await createTestApp({ graphql: { ...testConfig().graphql, maxAliases: 50 } });
    receiver = await startReceiver();
    const acmeTenant = await createTenant(t.db, 'Acme');
    globexTenant = await createTenant(t.db, 'Globex');
    acme = await buildWorld(t, acmeTenant, receiver.url, 'Acme');
    globex = await buildWorld(t, globexTenant, receiver.url, 'Globex');
    globexSession = await sessionHeaders(t, globexTenant.userId);
    schema = t.app.graphql.schema;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** Runs `call`, and reports any table or stored file it changed (but the session's own, for a session's call). */
  async function unchanged(call: () => Promise<void>, kind: CredentialKind = 'API key'): Promise<string[]> {
    const before = await snapshotAll(t);
    await call();
    const after = await snapshotAll(t);
    const tables = Object.keys(before.tables).filter(
      (table) =>
        before.tables[table] !== after.tables[table] && !(kind === 'session' && SESSION_TABLES.includes(table)),
    );
    return [
      ...tables.map((table) => `changed table ${table}`),
      ...(before.files.join() === after.files.join() ? [] : ['changed stored files']),
    ];
  }

  describe('REST', () => {
    const byId = REST_ROWS.filter((row) => pathParams(row.url).some((param) => !(param in NAMED_PARAMS)));
    const byName = REST_ROWS.filter(
      (row) => pathParams(row.url).length > 0 && pathParams(row.url).every((param) => param in NAMED_PARAMS),
    );

    it('should know an Acme id for every parameter and a body for every by-id row', () => {
      const missing: string[] = [];
      for (const row of byId) {
        for (const param of pathParams(row.url)) {
          if (!restNoun(row, param))
            missing.push(
              `${rowName(row)}: add an Acme id for parameter ${param} (REST_NOUNS in test/support/rest-rows.ts)`,
            );
        }
        if (!(rowName(row) in REST_BODY_OVERRIDES) && minimalPayload(row) === undefined)
          missing.push(`${rowName(row)}: add a body to REST_BODY_OVERRIDES`);
      }
      expect(missing).toEqual([]);
      expect(byId.length).toBeGreaterThanOrEqual(40);
    });

    it.each(CREDENTIALS)(
      'should answer 404 "<noun> not found" and change nothing, for Acme ids in every position (%s)',
      async (kind) => {
        const failures: string[] = [];
        let calls = 0;
        for (const row of byId) {
          const params = pathParams(row.url);
          const nouns = params.map((param) => restNoun(row, param)!);
          // All of Acme's ids; then, for nested paths, one of Acme's among Globex's own, so a child is
          // looked up within its parent and not merely by its id.
          const variants = [
            { foreignAt: 0, all: true },
            ...(params.length > 1 ? params.map((_, i) => ({ foreignAt: i, all: false })) : []),
          ];
          for (const { foreignAt, all } of variants) {
            const values = Object.fromEntries(
              params.map((param, i) => [param, all || i === foreignAt ? acme[nouns[i]] : globex[nouns[i]]]),
            );
            const url = fillPath(row.url, values);
            const override = REST_BODY_OVERRIDES[rowName(row)];
            const { payload, headers } =
              override !== undefined ? { payload: override, headers: undefined } : minimalPayload(row)!;
            let response!: Awaited<ReturnType<ReturnType<typeof client>['get']>>;
            const changes = await unchanged(async () => {
              response = await t.app.inject({
                method: row.method,
                url,
                payload: payload as never,
                headers: { ...credentialHeaders(kind), ...headers },
              });
            }, kind);
            calls++;
            // The answer names the foreign record or one under it on the path (a child of a parent
            // that is not found is not found either); never a record of Globex's own.
            const accepted = nouns
              .slice(foreignAt)
              .map((noun) => JSON.stringify({ status: 404, body: { detail: `${NOT_FOUND_NAME[noun]} not found` } }));
            const actual = JSON.stringify({
              status: response.statusCode,
              body: response.headers['content-type']?.toString().includes('json') ? response.json() : response.body,
            });
            if (!accepted.includes(actual) || changes.length) {
              failures.push(
                `${row.method} ${url} (${all ? 'all Acme' : `Acme ${params[foreignAt]}`}): ${actual}, expected one of ${accepted.join(' | ')} ${changes.join(', ')}`,
              );
            }
          }
        }
        expect(failures).toEqual([]);
        expect(calls).toBeGreaterThan(60);
      },
    );

    it("should leave Acme's own things alone on rows that name one (a provider), whatever Globex's admin sends", async () => {
      // Acme's S3 connection, as a connect would store it (no bucket is reached by these probes).
      await t.orm.em.fork().execute(
        `insert into cloud_storage_connection (organization_id, provider, bucket, region, endpoint, force_path_style, sealed_credentials, connected_at)
         values (?, 'S3', 'acme-bucket', 'us-east-1', null, false, 'sealed', now())`,
        [acme.organization],
      );
      const acmeAnswers = async () => {
        const api = client(t.app, acme.adminKey);
        const answers: string[] = [];
        for (const row of REST_ROWS.filter((r) => r.method === 'GET' && pathParams(r.url).length === 0))
          answers.push((await api.get(row.url)).body);
        return {
          rows: await t.orm.em
            .fork()
            .execute('select * from cloud_storage_connection where organization_id = ?', [acme.organization]),
          answers,
        };
      };
      const before = await acmeAnswers();
      expect(before.rows).toHaveLength(1);
      const failures: string[] = [];
      for (const row of byName) {
        const url = fillPath(row.url, NAMED_PARAMS);
        const { payload, headers } = minimalPayload(row) ?? {};
        const response = await t.app.inject({
          method: row.method,
          url,
          payload: payload as never,
          headers: { authorization: `Bearer ${globex.adminKey}`, ...headers },
        });
        if (response.statusCode >= 500) failures.push(`${row.method} ${url}: ${response.statusCode}`);
        const after = await acmeAnswers();
        if (JSON.stringify(after) !== JSON.stringify(before))
          failures.push(`${row.method} ${url} as Globex changed what Acme has`);
      }
      expect(failures).toEqual([]);
      expect(byName.length).toBeGreaterThanOrEqual(2);
      await t.orm.em
        .fork()
        .execute('delete from cloud_storage_connection where organization_id = ?', [acme.organization]);
    });

    it("should answer every by-id read with Globex's own ids (the probes above address real records)", async () => {
      const api = client(t.app, globex.adminKey);
      const failures: string[] = [];
      for (const row of byId.filter((r) => r.method === 'GET')) {
        const url = fillPath(
          row.url,
          Object.fromEntries(pathParams(row.url).map((param) => [param, globex[restNoun(row, param)!]])),
        );
        const response = await api.get(url);
        if (response.statusCode !== 200) failures.push(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });
  });

  describe('GraphQL', () => {
    /** An E_SIGNATURE item needs a contract, which the schema cannot say: a Globex one where none is named. */
    const withContracts = (value: unknown, contract: string): void => {
      if (!value || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'eSignature' && inner && typeof inner === 'object' && !('contractId' in inner))
          (inner as Record<string, unknown>).contractId = contract;
        withContracts(inner, contract);
      }
    };
    const nounsOf = (position: IdPosition) => GRAPHQL_NOUNS[positionName(position)];

    it('should know which Acme ids to pass in every id position of every root field', () => {
      const missing = idPositions(t.app.graphql.schema)
        .filter((position) => !nounsOf(position))
        .map(
          (position) =>
            `add an Acme id for parameter ${positionName(position)} (GRAPHQL_NOUNS in test/integration/tenancy-matrix.test.ts)`,
        );
      expect(missing).toEqual([]);
      const stale = Object.keys(GRAPHQL_NOUNS).filter(
        (name) => !idPositions(t.app.graphql.schema).some((p) => positionName(p) === name),
      );
      expect(stale).toEqual([]);
    });

    it.each(CREDENTIALS)(
      'should answer null to queries and NOT_FOUND to mutations, and change nothing (%s)',
      async (kind) => {
        const admin = client(t.app, credentialHeaders(kind));
        // The recipient operations are called by a Globex recipient, on its own request.
        const recipient = client(t.app, globex.recipientSession);
        const failures: string[] = [];
        let calls = 0;
        const positions = idPositions(schema);
        for (const position of positions) {
          const nouns = nounsOf(position);
          if (!nouns) continue;
          const root = position.root === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
          const field = root.getFields()[position.field] as GraphQLField<unknown, unknown>;
          // Every other id this field needs is Globex's own, so only the Acme id can be the reason to refuse.
          const globexId = (path: string[]): string => {
            const named = GRAPHQL_NOUNS[`${position.root}.${position.field}(${path.join('.')})`];
            if (!named)
              throw new Error(`add an Acme id for parameter ${position.root}.${position.field}(${path.join('.')})`);
            return globex[named[0]];
          };
          for (const noun of nouns) {
            const variables: Record<string, unknown> = {};
            for (const arg of field.args) {
              const override = GRAPHQL_ARG_OVERRIDES[field.name]?.[arg.name];
              if (override !== undefined) variables[arg.name] = structuredClone(override);
              else if (getNullableType(arg.type) !== arg.type)
                variables[arg.name] = minimalValue(arg.type, [arg.name], globexId);
            }
            setAt(field, variables, position.path, acme[noun], globexId);
            withContracts(variables, globex.contract);
            const document = fieldDocument(position.root, field);
            const api = forRecipient(field) ? recipient : admin;
            let result!: Awaited<ReturnType<typeof api.graphql>>;
            const changes = await unchanged(async () => {
              result = await api.graphql(document, variables);
            }, kind);
            calls++;
            const problem = judge(position, noun, field, result);
            if (problem || changes.length)
              failures.push(
                `${positionName(position)} with Acme's ${noun} ${JSON.stringify(variables)}: ${problem ?? ''} ${changes.join(', ')}`,
              );
          }
        }
        expect(failures).toEqual([]);
        expect(calls).toBeGreaterThan(60);
      },
    );

    it("should answer every id-taking query with Globex's own ids (the probes above address real records)", async () => {
      const api = client(t.app, globex.adminKey);
      const failures: string[] = [];
      for (const position of idPositions(schema).filter((p) => p.root === 'Query')) {
        const field = schema.getQueryType()!.getFields()[position.field] as GraphQLField<unknown, unknown>;
        for (const noun of nounsOf(position) as Noun[]) {
          const variables: Record<string, unknown> = {};
          setAt(field, variables, position.path, globex[noun], () => '');
          const result = await api.graphql(fieldDocument('Query', field), variables);
          const value = result.data?.[field.name];
          if (result.errors || !value || value.totalCount === 0)
            failures.push(`${positionName(position)} with Globex's ${noun}: ${JSON.stringify(result)}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it('should resolve every type implementing Node through node(id), so the probes above reach them all', async () => {
      const api = client(t.app, globex.adminKey);
      const ids = GRAPHQL_NOUNS['Query.node(id)'] as Noun[];
      const result = await api.graphql(
        `{ ${ids.map((noun) => `${noun}: node(id: "${globex[noun]}") { __typename }`).join(' ')} }`,
      );
      const resolved = new Set(
        Object.values(result.data ?? {}).map((node) => (node as { __typename: string } | null)?.__typename),
      );
      const nodeTypes = schema
        .getPossibleTypes(schema.getType('Node') as GraphQLInterfaceType)
        .map((type) => type.name);
      expect(nodeTypes.filter((name) => !resolved.has(name))).toEqual([]);
    });

    /** Null for a query by id, an empty page for a filter, a NOT_FOUND error or user error for a mutation. */
    function judge(
      position: IdPosition,
      noun: Noun,
      field: GraphQLField<unknown, unknown>,
      result: { data: any; errors?: Array<{ message: string; extensions?: Record<string, any> }> },
    ): string | undefined {
      const answer = JSON.stringify(result);
      const value = result.data?.[field.name];
      if (position.root === 'Query') {
        if (result.errors) return `errors ${answer}`;
        if (answerSelection(field).includes('totalCount'))
          return value?.totalCount === 0 ? undefined : `not an empty page: ${answer}`;
        return value === null ? undefined : `not null: ${answer}`;
      }
      // An id argument names the record the field acts on, or the parent it is looked up in: a
      // coded top-level error naming it or the field's subject, as for a missing record.
      if (position.path.length === 1 || NOT_FOUND_INPUTS[positionName(position)]) {
        const subject = GRAPHQL_NOUNS[`${position.root}.${position.field}(id)`];
        const names = [
          ...new Set([noun, ...(Array.isArray(subject) ? subject : [])].map((n) => `${NOT_FOUND_NAME[n]} not found`)),
        ];
        const [error] = result.errors ?? [];
        const ok =
          result.errors?.length === 1 &&
          error.extensions?.code === 'NOT_FOUND' &&
          names.includes(error.message) &&
          result.data === null;
        return ok ? undefined : `expected the top-level error NOT_FOUND "${names.join('" or "')}": ${answer}`;
      }
      // An id inside the input is one NOT_FOUND user error on its path, as any other bad value is.
      const userErrors = value?.userErrors as Array<{ field: string[]; code: string }> | undefined;
      const expected = JSON.stringify([{ field: userErrorPath(field, position.path), code: 'NOT_FOUND' }]);
      const actual = JSON.stringify(userErrors?.map((e) => ({ field: e.field, code: e.code })));
      return !result.errors && actual === expected ? undefined : `expected the user error ${expected}: ${answer}`;
    }
  });
});
