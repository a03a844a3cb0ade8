import { join, relative } from 'node:path';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import { ESLint, type Linter } from 'eslint';

// GRAPHQL.md says the schema is checked by graphql-eslint with `schema-recommended` and
// `schema-relay`, and asks for a description on every element. This runs those rules over
// schema/*.graphql through ESLint's programmatic API and fails listing every problem.

const ROOT = join(__dirname, '../..');
const SCHEMA_GLOB = 'schema/*.graphql';

/**
 * Output types that have no identity of their own, so `strict-id-in-types` must not ask them for an
 * `id: ID!`: mutation payloads, connection parts, errors, and value objects embedded in a record.
 */
// Events are identified by `eventId` (GRAPHQL.md 11 names the field; it is the webhook-id receivers
// deduplicate on), so they carry no separate `id`.
const VALUE_OBJECT_SUFFIXES = ['Payload', 'Connection', 'Edge', 'Error', 'Event'];
const VALUE_OBJECT_TYPES = [
  'PageInfo',
  // One entry of Request.reminderSchedule: a time and a message, stored inside the request.
  'ReminderScheduleEntry',
  // What an upload item accepts, stored inside the item (or the template's item).
  'UploadRules',
  // An item's copy of a form, stored inside the item; its `id` is the form's, which may be deleted.
  'ItemForm',
  // A field of a form, and an answer to it, stored inside the form or the item.
  'FormField',
  'FormAnswer',
  // An item's form as its recipient sees it, inside the recipient's view.
  'RecipientForm',
  // A webhook paired with its secret, for the one query that reveals it.
  'WebhookSecret',
  // Parts of a Contract, stored inside it; their optional `id` is the client's own label (spec 2.8).
  'ContractAnnotation',
  'ContractField',
  'ContractLayout',
  'ContractPosition',
  'ContractSize',
  'ContractAssignee',
  // Who did an activity entry's action, stored inside the entry; its `id` is the user's or the
  // recipient's (null for the service), not this object's.
  'ActivityActor',
  // A request's last rejection, stored inside the request.
  'RequestRejection',
  // What a reminder did for each recipient, and the messages it queued, stored inside the reminder.
  'ReminderRecipient',
  'ReminderMessage',
  // Parts of an Organization, one each: identified by the organization they belong to.
  'OrganizationSettings',
  'Branding',
  'ConfirmationPage',
  // The organization's message as a recipient reads it, inside its request's view.
  'RecipientConfirmation',
  // A page of the event log read forward (Query.requestEvents); its events carry their eventId.
  'RequestEventPage',
  // A provider's state for the caller's organization: identified by `provider`, one per organization.
  'CloudStorageProvider',
];

function config(): Linter.Config[] {
  return [
    {
      files: ['**/*.graphql'],
      languageOptions: {
        parser: graphqlPlugin.parser,
        parserOptions: {
          // The plugin loads the schema through graphql-config (its CommonJS build, so no ESM import
          // is needed); given inline, it needs no .graphqlrc on disk. An absolute glob does not
          // depend on the working directory jest runs in. Rules such as strict-id-in-types and
          // relay-* read this whole schema, so types extended in other files are seen complete.
          graphQLConfig: { schema: join(ROOT, SCHEMA_GLOB) },
        },
      },
      plugins: { '@graphql-eslint': graphqlPlugin as never },
      rules: {
        ...graphqlPlugin.configs['flat/schema-recommended'].rules,
        ...graphqlPlugin.configs['flat/schema-relay'].rules,
        // GRAPHQL.md 14: descriptions on every type, field, argument and enum value.
        '@graphql-eslint/require-description': [
          'error',
          {
            types: true,
            FieldDefinition: true,
            InputValueDefinition: true,
            EnumValueDefinition: true,
            DirectiveDefinition: true,
            rootField: true,
          },
        ],
        // GRAPHQL.md 2: small bounded child lists (a request's items, recipients) are plain lists, and
        // connections carry `nodes` beside `edges`; payloads carry `userErrors` lists. By default the
        // rule would demand that every list wraps an Edge type.
        '@graphql-eslint/relay-edge-types': ['error', { listTypeCanWrapOnlyEdgeType: false }],
        // Types that are not records have no identity to expose (see VALUE_OBJECT_* above).
        '@graphql-eslint/strict-id-in-types': [
          'error',
          { exceptions: { suffixes: VALUE_OBJECT_SUFFIXES, types: VALUE_OBJECT_TYPES } },
        ],
      } as Linter.RulesRecord,
    },
  ];
}

describe('GraphQL schema lint (graphql-eslint)', () => {
  it('should report no problem in schema/*.graphql', async () => {
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: config() });
    const results = await eslint.lintFiles([SCHEMA_GLOB]);
    expect(results.length).toBeGreaterThan(0);
    const problems = results.flatMap((result) =>
      result.messages.map(
        (m) => `${relative(ROOT, result.filePath)}:${m.line}:${m.column} ${m.ruleId ?? '(parser)'} ${m.message}`,
      ),
    );
    if (problems.length > 0) {
      throw new Error(`graphql-eslint found ${problems.length} problem(s) in the schema:\n${problems.join('\n')}`);
    }
    expect(problems).toEqual([]);
  });

  it('should catch what the rules are for (the configuration is live)', async () => {
    // A guard against a configuration that silently checks nothing (no file matched, no rule on).
    const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: config() });
    const [result] = await eslint.lintText('type bad_name {\n  Field: [String!]!\n}\n', {
      filePath: join(ROOT, 'schema/canary.graphql'),
    });
    const rules = new Set(result.messages.map((m) => m.ruleId));
    expect([...rules]).toEqual(
      expect.arrayContaining([
        '@graphql-eslint/require-description',
        '@graphql-eslint/naming-convention',
        '@graphql-eslint/strict-id-in-types',
      ]),
    );
  });
});
