import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Pool, type PoolClient } from 'pg';
import { registerAuth, viewerLookup } from '../../src/kernel/http/auth';
import { hashApiKey } from '../../src/modules/identity/api-key';
import type { Viewer } from '../../src/modules/identity/viewer';
import {
  effectiveAuth,
  linkToken,
  mfaLink,
  newLinkNonce,
  recipientPassword,
  requestLink,
  sha256Hex,
} from '../../src/modules/recipients/recipient-link';
import { restRequest } from '../../src/modules/requests/request.rest-shapes';
import type { CreateBody } from '../lib/documents';
import { benchConfig } from '../lib/in-process';
import { env, serve } from './child';

// Baseline of scenarios 2, 3 and 5: what a hand-written service would do. Fastify routes and a `pg`
// pool of the same size, the statements Gather sends (seen with the statement counter, written by hand
// with `= ANY($1)` batching and the same parallelism, reading the same columns), and the same JSON.
// No ORM, no GraphQL.
//
//   GET  /requests?first=N  -> {"data":{"requests":{"nodes":[...]}}}, as BenchRequestList returns it
//   GET  /requests/:id      -> {"data":{"request":{...}}},            as BenchRequestGet returns it
//   POST /requests          -> the REST body of POST /requests, after inserting the same rows in one transaction
//                              (with the `request.created` event row and its NOTIFY, when the schema has the
//                              event outbox: the body is the event's data, as Gather renders it)
//   PATCH /requests/:id     -> a rename with Gather's statements, answering the rows (see the route)

type Row = Record<string, any>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

serve('bare', async () => {
  const config = benchConfig();
  const pool = new Pool({ connectionString: env('BENCH_DB_URL'), max: config.dbPoolMax });
  const app = Fastify({ logger: false, bodyLimit: config.bodyLimit });
  const { rows: outbox } = await pool.query(
    `select to_regclass('public.event') is not null as present, to_regclass('public.webhook_delivery') is not null as deliveries`,
  );
  // Reads go as named statements, as Gather's lists, loaders and lookups do (src/kernel/db/db.ts):
  // PostgreSQL parses and plans each text once per connection.
  const names = new Map<string, string>();
  const read = (text: string, values: unknown[]) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `bare-read-${names.size + 1}`));
    return pool.query({ name, text, values });
  };
  const writesEvents: boolean = outbox[0].present;
  const queuesDeliveries: boolean = outbox[0].deliveries;

  // The same hook as Gather's; the key is resolved with the same single statement, on every request:
  // Gather keeps a key's caller between requests (src/kernel/db/shared-cache.ts, issue 14), this server
  // has no such cache.
  registerAuth(
    app,
    viewerLookup(async ({ kind, value: key }): Promise<Viewer | null> => {
      if (kind !== 'key') return null;
      const { rows } = await pool.query(
        `select u.id as user_id, u.organization_id, u.team_id, u.role, k.id as api_key_id
         from api_key k join app_user u on u.id = k.user_id
        where k.key_hash = $1 and k.revoked_at is null`,
        [hashApiKey(key)],
      );
      const row = rows[0];
      return row
        ? {
            userId: row.user_id,
            organizationId: row.organization_id,
            teamId: row.team_id,
            role: row.role,
            apiKeyId: row.api_key_id,
            actor: { type: 'USER' as const, id: row.user_id },
          }
        : null;
    }),
    { publicUrl: config.publicUrl },
  );

  /** What the viewer may see (request.access.ts), as SQL on alias `r` with parameters from $1. */
  function scope(viewer: Viewer): { where: string; params: unknown[] } {
    const base = 'r.organization_id = $1 and r.deleted_at is null';
    if (viewer.role === 'ADMIN') return { where: base, params: [viewer.organizationId] };
    const collaborates =
      'exists (select 1 from collaborator c where c.request_id = r.id and c.organization_id = r.organization_id and c.user_id = $2)';
    return viewer.teamId
      ? {
          where: `${base} and (r.owner_id = $2 or r.team_id = $3 or ${collaborates})`,
          params: [viewer.organizationId, viewer.userId, viewer.teamId],
        }
      : { where: `${base} and (r.owner_id = $2 or ${collaborates})`, params: [viewer.organizationId, viewer.userId] };
  }

  /**
   * The CTE that queues an event's webhook deliveries, when the schema has them: the event's id is $1,
   * its organization $2, its time $5, the inserted event row `inserted`.
   */
  const deliveriesOf = (topic: string) =>
    queuesDeliveries
      ? `, deliveries as (
           insert into webhook_delivery (id, organization_id, webhook_id, event_id, event_seq, topic, status, attempts, next_attempt_at, created_at, updated_at)
           select gen_random_uuid(), w.organization_id, w.id, $1, inserted.seq, '${topic}', 'PENDING', 0, $5, $5, $5
             from webhook w, inserted
            where w.organization_id = $2 and w.disabled_at is null and '${topic}' = any(w.topics))`
      : '';

  const group = (rows: Row[], key: string) => {
    const map = new Map<string, Row[]>();
    for (const row of rows) {
      const list = map.get(row[key]);
      if (list) list.push(row);
      else map.set(row[key], [row]);
    }
    return map;
  };
  const done = (item: Row) => item.status === 'COMPLETE' || item.status === 'VERIFIED' || item.is_na;
  const percent = (items: Row[]) => {
    const required = items.filter((item) => item.required);
    const counted = required.length ? required : items;
    return counted.length ? Math.round((counted.filter(done).length / counted.length) * 10000) / 100 : 0;
  };

  // The columns Gather's statements read for the list's document (it reads what a document selects,
  // src/kernel/graphql/projection.ts): the request's MFA setting comes with the recipients, whose
  // \`auth\` reads it. The get reads the whole request, as Gather's by-id lookup does.
  const PAGE_COLUMNS = 'r.id, r.owner_id, r.name, r.state, r.due_date, r.mfa_enabled, r.created_at, r.updated_at';

  /** Owners, items and recipients of a page of requests: three statements, sent side by side. */
  async function expand(requests: Row[], organizationId: string) {
    if (requests.length === 0) return [];
    const ids = requests.map((r) => r.id);
    const ownerIds = [...new Set(requests.map((r) => r.owner_id))];
    const [owners, items, recipients] = await Promise.all([
      read('select u.id, u.email, u.first_name, u.last_name from app_user u where u.id = any($1)', [ownerIds]),
      read(
        'select i.id, i.request_id, i.type, i.name, i.description, i.required, i.status, i.is_na from request_item i where i.request_id = any($1) and i.organization_id = $2 and i.deleted_at is null order by i.position asc',
        [ids, organizationId],
      ),
      read(
        'select c.id, c.request_id, c.first_name, c.last_name, c.email, c.phone, c.auth_method from recipient c where c.request_id = any($1) and c.organization_id = $2 order by c.position asc',
        [ids, organizationId],
      ),
    ]);
    const ownerById = new Map(owners.rows.map((u) => [u.id, u]));
    const itemsOf = group(items.rows, 'request_id');
    const recipientsOf = group(recipients.rows, 'request_id');
    return requests.map((r) => {
      const owner = ownerById.get(r.owner_id)!;
      const its = itemsOf.get(r.id) ?? [];
      return {
        id: r.id,
        name: r.name,
        state: r.state,
        dueDate: r.due_date,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        percentComplete: percent(its),
        owner: { id: owner.id, email: owner.email, firstName: owner.first_name, lastName: owner.last_name },
        items: its.map((i) => ({
          id: i.id,
          kind: i.type,
          name: i.name,
          description: i.description,
          required: i.required,
          status: i.status,
        })),
        recipients: (recipientsOf.get(r.id) ?? []).map((c) => ({
          id: c.id,
          firstName: c.first_name,
          lastName: c.last_name,
          email: c.email,
          phone: c.phone,
          authMethod: c.auth_method,
        })),
      };
    });
  }

  app.get('/requests', async (request) => {
    const query = request.query as { first?: string };
    const size = Math.min(Math.max(Number(query.first ?? 20) || 20, 1), 100);
    const { where, params } = scope(request.viewer!);
    const { rows } = await read(
      `select ${PAGE_COLUMNS} from request r where ${where} order by r.created_at desc, r.id desc limit $${params.length + 1}`,
      [...params, size + 1],
    );
    return { data: { requests: { nodes: await expand(rows.slice(0, size), request.viewer!.organizationId) } } };
  });

  app.get('/requests/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!UUID.test(id)) return { data: { request: null } };
    const { where, params } = scope(request.viewer!);
    const { rows } = await read(`select r.* from request r where r.id = $${params.length + 1} and ${where} limit 1`, [
      ...params,
      id,
    ]);
    const [node] = await expand(rows, request.viewer!.organizationId);
    return { data: { request: node ?? null } };
  });

  app.post(
    '/requests',
    {
      schema: {
        body: {
          type: 'object',
          required: ['recipients'],
          properties: {
            recipients: { type: 'array', minItems: 1, maxItems: 20 },
            items: { type: 'array', maxItems: 100 },
          },
        },
      },
    },
    async (request) => {
      const viewer = request.viewer!;
      const body = request.body as CreateBody;
      const now = new Date();
      const requestId = randomUUID();
      const people = body.recipients.map((r: Row) => ({
        firstName: r.first_name ?? null,
        lastName: r.last_name ?? null,
        email: r.email?.trim() || null,
        phone: r.phone?.trim() || null,
      }));
      // The same REST body, mapped by the same function from the values stored.
      const render = () => {
        const at = now.toISOString();
        const team = viewer.teamId ? { id: viewer.teamId } : null;
        const token = (r: Row) => linkToken(config.secret, r.id, r.nonce);
        return restRequest({
          id: requestId,
          name: body.name.trim(),
          state: 'INCOMPLETE_AND_LINK_SENT',
          owner: { id: viewer.userId },
          team,
          template: null,
          ownerOpened: false,
          userOpened: false,
          verified: false,
          rejected: false,
          dueDate: null,
          expirationDate: null,
          autoCloseAt: null,
          firstReminderDate: null,
          personalMessage: body.personal_message ?? null,
          notes: null,
          userMetadata: {},
          language: 'EN_US',
          reminders: 3,
          reminderSchedule: [],
          escalations: [],
          cloudStorageFolder: null,
          cloudStorageProvider: 'SERVICE',
          requireCompleteSubmission: false,
          disableSubmissionComments: false,
          mfaEnabled: false,
          percentComplete: percent(items.map((i) => ({ ...i, status: 'INCOMPLETE', is_na: false }))),
          closedAt: null,
          createdAt: at,
          updatedAt: at,
          items: items.map((i) => ({
            id: i.id,
            kind: i.type,
            name: i.name,
            description: i.description,
            required: i.required,
            verified: false,
            isNa: false,
            ...(i.type === 'QUESTION' ? { answer: null } : {}),
          })),
          recipients: recipients.map((r) => {
            const auth = effectiveAuth('UNSET', false, r.email);
            return {
              requestLink: requestLink(config.publicUrl, token(r)),
              mfaLink: mfaLink(config.publicUrl, token(r), auth, false),
              auth,
              password: recipientPassword(config.secret, r.id, r.nonce),
              firstName: r.firstName,
              lastName: r.lastName,
              email: r.email,
              phone: r.phone,
              language: null,
              contact: { id: r.contactId, owner: { id: viewer.userId }, team },
            };
          }),
          attachments: [],
          collaborators: [],
        } as never);
      };
      let body_!: ReturnType<typeof render>;
      const client: PoolClient = await pool.connect();
      let contactIds: string[];
      const recipients: Row[] = [];
      const items: Row[] = [];
      try {
        // Prepared (named) as Gather prepares its creation's statements (src/kernel/db/lean.ts,
        // StatementOptions): PostgreSQL parses and plans each once per connection on both sides. The
        // texts vary with the number of rows, so the names carry it.
        await client.query('begin');
        // The owner's contacts, upserted in one statement (the same as recipient.service.ts).
        const contactValues: unknown[] = [];
        const contactRows = people.map((p, i) => {
          contactValues.push(
            viewer.organizationId,
            viewer.userId,
            viewer.teamId,
            p.firstName,
            p.lastName,
            p.email,
            p.phone,
            null,
            now,
            now,
          );
          const b = i * 10;
          return `(gen_random_uuid(), $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}, $${b + 10})`;
        });
        const contacts = await client.query({
          name: `bare-contacts-${people.length}`,
          text: `insert into contact (id, organization_id, owner_id, team_id, first_name, last_name, email, phone, language, created_at, updated_at)
           values ${contactRows.join(', ')}
           on conflict (owner_id, (lower(coalesce(email, ''))), (coalesce(phone, ''))) do update set
             first_name = coalesce(excluded.first_name, contact.first_name),
             last_name = coalesce(excluded.last_name, contact.last_name),
             language = coalesce(excluded.language, contact.language),
             updated_at = excluded.updated_at
           returning id, lower(coalesce(email, '')) as email_key, coalesce(phone, '') as phone_key`,
          values: contactValues,
        });
        const byKey = new Map(contacts.rows.map((c) => [`${c.email_key}|${c.phone_key}`, c.id as string]));
        contactIds = people.map((p) => byKey.get(`${p.email?.toLowerCase() ?? ''}|${p.phone ?? ''}`)!);

        await client.query({
          name: 'bare-request',
          text: `insert into request (id, organization_id, owner_id, team_id, template_id, name, state, owner_opened, user_opened, verified, rejected,
             due_date, expiration_date, auto_close_at, first_reminder_date, personal_message, notes, user_metadata, language, reminders,
             reminder_schedule, cloud_storage_folder, cloud_storage_provider, require_complete_submission, disable_submission_comments,
             mfa_enabled, skip_initial_notification, closed_at, deleted_at, created_at, updated_at)
           values ($1, $2, $3, $4, null, $5, 'INCOMPLETE_AND_LINK_SENT', false, false, false, false, null, null, null, null, $6, null, '{}', 'en-US', 3,
             '[]', null, 'SERVICE', false, false, false, false, null, null, $7, $7)`,
          values: [
            requestId,
            viewer.organizationId,
            viewer.userId,
            viewer.teamId,
            body.name.trim(),
            body.personal_message ?? null,
            now,
          ],
        });

        const recipientValues: unknown[] = [];
        const recipientRows = people.map((p, position) => {
          const id = randomUUID();
          const nonce = newLinkNonce();
          recipients.push({ id, nonce, ...p, contactId: contactIds[position] });
          recipientValues.push(
            id,
            requestId,
            contactIds[position],
            position,
            p.firstName,
            p.lastName,
            p.email,
            p.phone,
            'UNSET',
            'DEFAULT',
            nonce,
            sha256Hex(linkToken(config.secret, id, nonce)),
            sha256Hex(recipientPassword(config.secret, id, nonce)),
            now,
            viewer.organizationId,
          );
          const b = position * 15;
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, null, $${b + 9}, $${b + 10}, null, null, $${b + 11}, $${b + 12}, $${b + 13}, $${b + 14}, $${b + 15})`;
        });
        await client.query({
          name: `bare-recipients-${people.length}`,
          text: `insert into recipient (id, request_id, contact_id, position, first_name, last_name, email, phone, language, auth_method, send_method,
             question_text, question_answer_hash, link_nonce, token_hash, password_hash, created_at, organization_id) values ${recipientRows.join(', ')}`,
          values: recipientValues,
        });

        if (body.items?.length) {
          const itemValues: unknown[] = [];
          const itemRows = body.items.map((input: Row, position: number) => {
            const type = input.type === 'STANDARD' ? 'UPLOAD' : input.type;
            const item = {
              id: randomUUID(),
              type,
              name: input.name.trim(),
              description: input.description ?? null,
              required: input.required ?? false,
            };
            items.push(item);
            itemValues.push(
              item.id,
              requestId,
              position,
              type,
              item.name,
              item.description,
              item.required,
              type === 'QUESTION' ? 'TEXT' : null,
              recipients[0].id,
              now,
              viewer.organizationId,
            );
            const b = position * 11;
            return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, 'INCOMPLETE', false, $${b + 8}, null, null, $${b + 9}, null, $${b + 10}, $${b + 10}, $${b + 11})`;
          });
          await client.query({
            name: `bare-items-${body.items.length}`,
            text: `insert into request_item (id, request_id, position, type, name, description, required, status, is_na, question_type, answer,
               contract_id, assignee_id, verified_at, created_at, updated_at, organization_id) values ${itemRows.join(', ')}`,
            values: itemValues,
          });
        }
        body_ = render();
        if (writesEvents) {
          const eventId = randomUUID();
          // The event, its webhook deliveries and its notification in one statement, as Gather's
          // outbox writes them (outbox.ts, emit; webhook.service.ts, queueDeliveries).
          const deliveries = deliveriesOf('request.created');
          await client.query({
            name: 'bare-event',
            text: `with inserted as (
               insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at)
               values ($1, $2, 'request.created', 'Request', $3, $3, $4::jsonb, null, $5) returning seq)${deliveries}
             select pg_notify('gather_events', $1::text) from inserted`,
            values: [eventId, viewer.organizationId, requestId, JSON.stringify(body_), now],
          });
        }
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }

      return body_;
    },
  );

  // PATCH /requests/:id as a hand-written service would send Gather's statements for a rename: the
  // row locked under the viewer's scope, the update, the request's items, attachments, recipients,
  // their contacts and collaborators, the `request.updated` event with its webhook deliveries, activity
  // entry and NOTIFY, in one transaction, one statement per round trip. It answers the rows as `pg`
  // returns them, not Gather's REST shape: a lower bound of what such a PATCH costs (bench/patch-cost.ts --bare).
  app.patch(
    '/requests/:id',
    {
      schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } },
    },
    async (request, reply) => {
      const viewer = request.viewer!;
      const { id } = request.params as { id: string };
      const { name } = request.body as { name: string };
      if (!UUID.test(id)) return reply.code(404).send({ error: 'not_found' });
      const { where, params } = scope(viewer);
      const now = new Date();
      const client: PoolClient = await pool.connect();
      try {
        await client.query('begin');
        const locked = await client.query(
          `select r.* from request r where r.id = $${params.length + 1} and ${where} for update`,
          [...params, id],
        );
        if (!locked.rows.length) {
          await client.query('rollback');
          return reply.code(404).send({ error: 'not_found' });
        }
        await client.query({
          name: 'bare-patch-update',
          text: 'update request set name = $1, updated_at = $2 where id = $3',
          values: [name.trim(), now, id],
        });
        const scoped = [id, viewer.organizationId];
        const children: [string, unknown[]][] = [
          [
            'select id, request_id, type, name, description, required, status, is_na, answer, form, form_answers from request_item where request_id = $1 and organization_id = $2 and deleted_at is null order by position asc',
            scoped,
          ],
          ['select * from attachment where request_id = $1 and item_id is null order by position asc', [id]],
          ['select * from recipient where request_id = $1 and organization_id = $2 order by position asc', scoped],
          [
            'select * from contact where id in (select contact_id from recipient where request_id = $1 and organization_id = $2)',
            scoped,
          ],
          ['select * from collaborator where request_id = $1 and organization_id = $2 order by position asc', scoped],
        ];
        const [items, attachments, recipients, contacts, collaborators] = await Promise.all(
          children.map(([text, values], i) => client.query({ name: `bare-patch-read-${i}`, text, values })),
        );
        const body = {
          ...locked.rows[0],
          name: name.trim(),
          updated_at: now,
          items: items.rows,
          attachments: attachments.rows,
          recipients: recipients.rows,
          contacts: contacts.rows,
          collaborators: collaborators.rows,
        };
        if (writesEvents) {
          const deliveries = deliveriesOf('request.updated');
          await client.query({
            name: 'bare-patch-event',
            text: `with inserted as (
             insert into event (id, organization_id, topic, subject_type, subject_id, request_id, data, updated, created_at)
             values ($1, $2, 'request.updated', 'Request', $3, $3, $4::jsonb, '["name"]'::jsonb, $5) returning seq)${deliveries},
           entry as (
             insert into activity (id, organization_id, request_id, action, actor_type, actor_id, ip, user_agent, details, created_at)
             values (gen_random_uuid(), $2, $3, 'request.updated', 'USER', $6, null, null, '{"updated":["name"]}'::jsonb, $5))
           select pg_notify('gather_events', $1::text) from inserted`,
            values: [randomUUID(), viewer.organizationId, id, JSON.stringify(body), now, viewer.userId],
          });
        }
        await client.query('commit');
        return body;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  );

  return {
    app,
    async close() {
      await app.close();
      await pool.end();
    },
  };
});
