import type { TSchema } from '@sinclair/typebox';
import { isUploadRow, type RestRow } from '../../src/kernel/rest/engine';
import { REST_ROWS } from '../../src/modules';
import { multipart } from './files';
import type { WorldNoun } from './world';

export { REST_ROWS };

export const rowName = (row: Pick<RestRow, 'method' | 'url'>) => `${row.method} ${row.url}`;

/** The `:param` names of a row's path, in order. */
export const pathParams = (url: string): string[] => [...url.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);

/** The collection a path parameter indexes, with its parent's (`items/attachments` for `/items/:i/attachments/:a`). */
export function paramCollection(url: string, param: string): { collection: string; qualified: string } {
  const segments = url.split('/').filter(Boolean);
  const at = segments.indexOf(`:${param}`);
  const collection = segments[at - 1];
  const parent = at >= 3 && segments[at - 2].startsWith(':') ? segments[at - 3] : undefined;
  return { collection, qualified: parent ? `${parent}/${collection}` : collection };
}

/** The noun of the world a path parameter takes an id of; undefined for a collection not in REST_NOUNS. */
export function restNoun(row: Pick<RestRow, 'url'>, param: string): WorldNoun | undefined {
  const { collection, qualified } = paramCollection(row.url, param);
  return REST_NOUNS[qualified] ?? REST_NOUNS[collection];
}

export const fillPath = (url: string, values: Record<string, string>) =>
  url.replace(/:([a-z_]+)/g, (_, name: string) => values[name]);

/** What a path parameter indexes, by its collection segment (qualified by its parent's where they differ). */
export const REST_NOUNS: Record<string, WorldNoun> = {
  organizations: 'organization',
  users: 'user',
  teams: 'team',
  requests: 'request',
  items: 'item',
  'items/attachments': 'itemAttachment',
  attachments: 'libraryAttachment',
  documents: 'document',
  contracts: 'contract',
  forms: 'form',
  templates: 'template',
  webhooks: 'webhook',
  'webhooks/deliveries': 'delivery',
  recipients: 'recipient',
  'scheduled-reminders': 'scheduledReminder',
  escalations: 'escalation',
  shares: 'share',
  'bulk-sends': 'bulkSend',
};

type Schema = TSchema & Record<string, any>;

/**
 * The smallest value a JSON Schema accepts, built from its required parts; undefined when it cannot
 * tell (a required UUID names a record, which only the caller can choose).
 */
export function minimalJson(schema: Schema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.anyOf) return minimalJson(schema.anyOf.find((s: Schema) => s.type !== 'null'));
  if (schema.enum) return schema.enum.find((v: unknown) => v !== null);
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const key of schema.required ?? []) {
        const inner = minimalJson(schema.properties?.[key]);
        if (inner === undefined) return undefined;
        value[key] = inner;
      }
      return value;
    }
    case 'array': {
      const element = minimalJson(schema.items);
      if (element === undefined && (schema.minItems ?? 0) > 0) return undefined;
      return Array.from({ length: schema.minItems ?? 0 }, () => element);
    }
    case 'string':
      if (schema.format === 'uuid') return undefined;
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'date-time') return '2030-01-01T00:00:00.000Z';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/** What to send to a row: a one-file multipart body for uploads, else the smallest valid JSON body. */
export function minimalPayload(row: RestRow): { payload?: unknown; headers?: Record<string, string> } | undefined {
  if (isUploadRow(row)) {
    const { payload, headers } = multipart('tenancy probe\n', { filename: 'probe.txt', type: 'text/plain' });
    return { payload, headers };
  }
  if (!row.schema.body) return {};
  const body = minimalJson(row.schema.body as Schema);
  return body === undefined ? undefined : { payload: body };
}
