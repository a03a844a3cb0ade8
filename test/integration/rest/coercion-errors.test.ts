import { client, createTenant, createTestApp, type TestApp } from '../../support/app';
import { fillPath, minimalPayload, pathParams, REST_ROWS, restNoun, rowName } from '../../support/rest-rows';
import { startReceiver } from '../../support/receiver';
import { buildWorld, type World } from '../../support/world';
import { isUploadRow, type RestRow } from '../../../src/kernel/rest/engine';

// A REST row's body passes its JSON Schema and is then run as a GraphQL document, whose scalars and
// enums may still refuse a value the schema let through (a URL that is not http, a date that is
// not one). Whatever the row, such a refusal is the row's 422 on the field the client sent, never a
// message about the GraphQL variables behind it, nor a 500.

type Schema = Record<string, any>;

/** Texts that pass a plain string schema but that typed scalars (URL, DateTime, ID, JSON) refuse. */
const HOSTILE = ['ftp://x', 'yesterday', 'a'.repeat(3)];

/** The body properties a JSON Schema types as text of any shape (no enum or format to refuse them). */
function plainStrings(schema: Schema | undefined): string[] {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties as Record<string, Schema>)
    .filter(([, property]) => {
      const type = Array.isArray(property.type) ? property.type : [property.type];
      return type.includes('string') && !property.enum && !property.format;
    })
    .map(([name]) => name);
}

const INTERNAL_WORDING = /Variable "\$|got invalid value|Expected type|\$input|GraphQL/;

describe('GraphQL coercion errors on every REST row', () => {
  let t: TestApp;
  let world: World;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await createTestApp();
    receiver = await startReceiver();
    world = await buildWorld(t, await createTenant(t.db, 'Acme'), receiver.url, 'Acme');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const writable = (row: RestRow) =>
    ['POST', 'PATCH', 'PUT'].includes(row.method) &&
    !isUploadRow(row) &&
    plainStrings(row.schema.body as Schema).length > 0;

  it('should answer a 422 on the field in the row own words, for text every plain string field of every row accepts', async () => {
    const rows = REST_ROWS.filter(writable).filter((row) => pathParams(row.url).every((param) => restNoun(row, param)));
    expect(rows.length).toBeGreaterThanOrEqual(15);
    const failures: string[] = [];
    let refused = 0;
    for (const row of rows) {
      const base = minimalPayload(row);
      if (!base || typeof base.payload !== 'object' || base.payload === null) continue;
      const url = fillPath(
        row.url,
        Object.fromEntries(pathParams(row.url).map((param) => [param, world[restNoun(row, param)!]])),
      );
      for (const field of plainStrings(row.schema.body as Schema)) {
        for (const value of HOSTILE) {
          const payload = { ...(base.payload as object), [field]: value };
          const response = await t.app.inject({
            method: row.method,
            url,
            payload,
            headers: { authorization: `Bearer ${world.adminKey}` },
          });
          const what = `${rowName(row)} {"${field}": "${value}"}: ${response.statusCode} ${response.body.slice(0, 300)}`;
          if (response.statusCode >= 500) failures.push(what);
          if (response.statusCode !== 422) continue;
          const detail = response.json().detail;
          if (!Array.isArray(detail)) continue;
          refused++;
          if (detail.some((entry: { msg: string }) => INTERNAL_WORDING.test(entry.msg))) failures.push(what);
          // Only a refusal of the whole request (a state that does not allow it) stands on the body.
          if (
            detail.some(
              (entry: { loc: unknown[]; type: string }) => entry.loc.length === 1 && entry.type !== 'invalid_state',
            )
          )
            failures.push(what);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });

  it('should place a URL the scalar refuses on the field, for creating and changing a webhook', async () => {
    const api = client(t.app, world.adminKey);
    const created = await api.post('/webhooks', { endpoint: 'ftp://x', topics: ['request.created'] });
    expect(created.statusCode).toBe(422);
    expect(created.json().detail).toEqual([
      { loc: ['body', 'endpoint'], msg: expect.not.stringMatching(INTERNAL_WORDING), type: expect.any(String) },
    ]);
    const changed = await api.patch(`/webhooks/${world.webhook}`, { endpoint: 'ftp://x' });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().detail).toEqual([
      { loc: ['body', 'endpoint'], msg: expect.not.stringMatching(INTERNAL_WORDING), type: expect.any(String) },
    ]);
  });

  it('should list the values a nullable enum takes without offering null', async () => {
    const api = client(t.app, world.adminKey);
    for (const [url, body] of [
      [
        '/requests',
        { name: 'x', language: 'xx', recipients: [{ email: 'a@example.com' }], items: [{ name: 'a', type: 'UPLOAD' }] },
      ],
      ['/templates', { name: 'x', language: 'xx' }],
    ] as const) {
      const response = await api.post(url, body);
      expect(response.statusCode).toBe(422);
      const [entry] = response.json().detail;
      expect(entry).toMatchObject({ loc: ['body', 'language'], type: 'enum' });
      expect(entry.msg).toMatch(/^Input should be 'en-US', 'es', .*'ru', 'en'$/);
    }
  });
});
