import { client, createTenantApp, type Tenant, type TestApp } from '../../support/app';
import { requestBody } from '../../support/fixtures';

// The organization's settings are read where they govern: a request created without those fields
// takes the organization's defaults, and a recipient's sign-in method outside the allowed list is a 422.

describe('organization settings at request creation', () => {
  let t: TestApp;
  let tenant: Tenant;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    ({ t, tenant, api } = await createTenantApp({}, {}, 'Acme'));
    const patched = await api.patch(`/organizations/${tenant.organizationId}/settings`, {
      default_expiration_days: 30,
      default_reminders: 7,
      default_language: 'es',
      require_complete_submission: true,
      allowed_auth_methods: ['EMAIL', 'SECURITY_QUESTION'],
    });
    expect(patched.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  const emailRecipient = [{ first_name: 'Ana', email: 'ana@example.com', auth_method: 'EMAIL' }];

  it("should give a request without those fields the organization's defaults", async () => {
    const before = Date.now();
    const created = await api.post('/requests', requestBody({ recipients: emailRecipient }));
    expect(created.statusCode).toBe(200);
    const request = created.json();
    expect(request).toMatchObject({ reminders: '7', language: 'es', require_complete_submission: true });
    const days = (new Date(request.expiration_date).getTime() - before) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    const graphql = await api.graphql(
      'query($id: ID!) { request(id: $id) { reminders language requireCompleteSubmission expirationDate } }',
      { id: request.id },
    );
    expect(graphql.data.request).toMatchObject({
      reminders: 7,
      language: 'ES',
      requireCompleteSubmission: true,
      expirationDate: request.expiration_date,
    });
  });

  it('should keep what the request gives, an explicit null expiration included', async () => {
    const created = await api.post(
      '/requests',
      requestBody({
        recipients: emailRecipient,
        reminders: 1,
        language: 'en-US',
        require_complete_submission: false,
        expiration_date: null,
      }),
    );
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({
      reminders: '1',
      language: 'en-US',
      require_complete_submission: false,
      expiration_date: null,
    });
  });

  it('should refuse a recipient whose sign-in method the organization does not allow, on REST and GraphQL', async () => {
    const refused = await api.post(
      '/requests',
      requestBody({
        recipients: [
          ...emailRecipient,
          { email: 'bo@example.com', auth_method: 'SMS', phone: '+15550001111' },
          { email: 'cy@example.com' },
        ],
      }),
    );
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail.map((d: { loc: unknown[]; msg: string }) => [d.loc, d.msg])).toEqual([
      [
        ['body', 'recipients', 1, 'auth_method'],
        'Your organization does not allow SMS; allowed: EMAIL, SECURITY_QUESTION',
      ],
      // No method and no MFA is NONE, which is not allowed either.
      [
        ['body', 'recipients', 2, 'auth_method'],
        'Your organization does not allow NONE; allowed: EMAIL, SECURITY_QUESTION',
      ],
    ]);
    // With MFA on, an unchosen method is a code by email: allowed.
    const mfa = await api.post(
      '/requests',
      requestBody({ recipients: [{ email: 'cy@example.com' }], mfa_enabled: true }),
    );
    expect(mfa.statusCode).toBe(200);
    const graphql = await api.graphql(
      'mutation($input: RequestCreateInput!) { requestCreate(input: $input) { request { id } userErrors { field code } } }',
      {
        input: {
          name: 'X',
          items: [{ upload: { name: 'W-2' } }],
          recipients: [{ email: 'dee@example.com', authMethod: 'NONE' }],
        },
      },
    );
    expect(graphql.data.requestCreate).toEqual({
      request: null,
      userErrors: [{ field: ['input', 'recipients', '0', 'authMethod'], code: 'INVALID' }],
    });
  });

  it("should refuse a default expiration that falls before the request's due date", async () => {
    const due = new Date(Date.now() + 60 * 86_400_000).toISOString();
    const refused = await api.post('/requests', requestBody({ recipients: emailRecipient, due_date: due }));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0].loc).toEqual(['body', 'expiration_date']);
  });
});
