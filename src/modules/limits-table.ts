import {
  DEFAULT_MAX_QUERY_ALIASES,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RATE_LIMIT_ADDRESS,
  DEFAULT_RATE_LIMIT_API_KEY,
  DEFAULT_RATE_LIMIT_LINK,
  IDEMPOTENCY_KEY_HOURS,
  DEFAULT_JOB_CONCURRENCY,
  DEFAULT_JOB_POLL_MS,
  MAX_JOB_CONCURRENCY,
  MAX_JOB_POLL_MS,
  MIN_JOB_POLL_MS,
  MAX_BATCH_OPERATIONS,
  MAX_IDEMPOTENCY_KEY,
  MAX_PERSISTED_QUERIES,
  MAX_QUERY_COST,
  MAX_QUERY_DIRECTIVES,
  MAX_QUERY_TOKENS,
  MAX_DATE,
  MAX_EMAIL,
  MAX_JSON_DEPTH,
  MAX_MESSAGE_BYTES,
  MAX_METRIC_OPERATIONS,
  MAX_PAGE_SIZE,
  MAX_PENDING_BYTES,
  MAX_PERSON_NAME,
  MAX_PHONE,
  MAX_QUERY_DEPTH,
  MIN_DATE,
  MAX_PREPARED_STATEMENTS,
  SHARED_CACHE_ENTRIES,
  SHARED_CACHE_TTL_SECONDS,
} from '../kernel/limits';
import {
  COPY_CONNECT_TIMEOUT_MS,
  COPY_IDLE_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
  MAX_ACCESS_KEY_ID,
  MAX_REGION,
  MAX_S3_ENDPOINT,
  MAX_SECRET_ACCESS_KEY,
} from './cloud-storage/cloud-storage.limits';
import {
  CONTRACT_EDITOR_LINK_HOURS,
  MAX_CONTRACT_BYTES,
  MAX_CONTRACT_INFLATED_BYTES,
  MAX_CONTRACT_OBJECTS,
  MAX_CONTRACT_OBJECT_STREAM_BYTES,
  MAX_CONTRACT_PAGE,
  MAX_CONTRACT_PARTS,
  MAX_LAYOUT_POINTS,
  MAX_PART_ID,
  MAX_PART_TEXT,
  PDF_TIME_BUDGET_SECONDS,
  PDF_WORKERS,
  PDF_WORKER_HEAP_MB,
} from './contracts/contract.limits';
import { MAX_FILE_NAME, MAX_RAW_UPLOAD_NAME, MAX_ZIP_SEGMENT } from './files/file.limits';
import {
  BULK_SEND_CONCURRENCY,
  BULK_SEND_PROGRESS_MS,
  BULK_SEND_PROGRESS_ROWS,
  MAX_BULK_SEND_CSV_BYTES,
  MAX_BULK_SEND_ROWS,
} from './bulk-sends/bulk-send.limits';
import { MAX_FORM_FIELD_NAME, MAX_FORM_FIELDS, MAX_FORM_NAME, MAX_FORM_VALUE } from './forms/form.limits';
import { MAX_API_KEY_NAME, MAX_ORGANIZATION_NAME, MAX_TEAM_NAME } from './identity/identity.limits';
import {
  MAX_ANSWER,
  MAX_ATTACHMENT_IDS,
  MAX_ITEM_DESCRIPTION,
  MAX_ITEM_NAME,
  MAX_REJECTION_MESSAGE,
  MAX_ACCEPT_ENTRIES,
  MAX_FILE_NAME_PATTERN,
} from './items/item.limits';
import {
  LOGO_CACHE_SECONDS,
  MAX_CONFIRMATION_MESSAGE_LENGTH,
  MAX_LOGO_BYTES,
  MAX_SENDER_NAME_LENGTH,
  MAX_SETTINGS_DAYS,
} from './organizations/organization.limits';
import {
  DEFAULT_UNFINISHED_UPLOAD_BYTES,
  DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION,
  MAX_PARTIAL_UPLOADS,
  PARTIAL_UPLOAD_EXPIRY_HOURS,
} from './portal/portal.uploads.limits';
import { MAX_QUESTION, MAX_RECIPIENTS } from './recipients/recipient.limits';
import {
  MAX_LISTED_DOWNLOADS,
  MAX_SHARE_BYTES,
  MAX_SHARE_FILES,
  MAX_SHARE_MESSAGE,
  MAX_SHARE_QUESTION,
  MAX_SHARE_RECIPIENTS,
  MAX_SHARE_TITLE,
} from './shares/share.limits';
import {
  MAX_CLOUD_STORAGE_FOLDER,
  MAX_COLLABORATORS,
  MAX_ITEMS,
  MAX_METADATA_KEY,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE,
  MAX_NOTES,
  MAX_PERSONAL_MESSAGE,
  MAX_REMINDER_MESSAGE,
  MAX_REMINDER_SCHEDULE,
  MAX_REMINDERS,
  MAX_REQUEST_NAME,
  MAX_REQUEST_SEARCH,
  MIN_REMINDERS,
} from './requests/request.limits';
import {
  MAX_DEFAULT_TITLE,
  MAX_DUE_DATE_INTERVAL,
  MAX_TEMPLATE_ITEMS,
  MAX_TEMPLATE_NAME,
} from './templates/template.limits';
import {
  MAX_BODY_LENGTH,
  MAX_NOTIFICATION_ERROR,
  MAX_RETRY_AFTER_MS,
  MAX_SMS_LENGTH,
  MAX_SUBJECT_LENGTH,
  NOTIFICATION_CONCURRENCY,
  NOTIFICATIONS_PER_JOB,
  NOTIFICATION_MAX_ATTEMPTS,
  NOTIFICATION_RETRY_DELAYS_MS,
  NOTIFICATION_SEND_TIMEOUT_MS,
} from './notifications/notification.limits';
import {
  JOB_MAX_ATTEMPTS,
  JOB_RETRY_DELAYS_MS,
  MAX_ESCALATION_DAYS,
  MAX_ESCALATIONS,
  MAX_SCHEDULED_REMINDERS,
  MIN_ESCALATION_DAYS,
  REMINDER_DEFER_MS,
  REMINDER_MIN_GAP_MS,
} from './schedule/schedule.limits';
import {
  MAX_FIELD_VALUE,
  MAX_SIGNATURE_PNG_BYTES,
  MAX_SIGNATURE_PNG_PIXELS,
  MAX_SIGNATURE_TEXT,
} from './signing/signing.limits';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './webhooks/webhook.delivery';
import { DELIVERY_QUEUES_PER_ENDPOINT, MAX_ENDPOINT_LENGTH, MAX_TOPICS } from './webhooks/webhook.limits';
import { writeSection, type ReadmeSection } from './readme-section';
import {
  CODE_DIGITS,
  CODE_RESEND_SECONDS,
  CODE_VALID_MINUTES,
  MAX_CODES_PER_HOUR,
  MAX_SIGN_IN_FAILURES,
  MAX_SUBMISSION_COMMENT,
  SESSION_HOURS,
  SIGN_IN_LOCK_MINUTES,
} from './portal/portal.limits';
import {
  SESSION_IDLE_HOURS,
  SESSION_MAX_DAYS,
  SESSION_TOUCH_SECONDS,
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_LINK_MINUTES,
  SIGN_IN_LINKS_PER_EMAIL,
  SIGN_IN_WINDOW_MINUTES,
} from './sessions/session.limits';

// The Limits table of docs/operations.md, written from the limits constants so that it cannot drift
// from what the service enforces: `npm run docs:limits` rewrites it, test/unit/readme-limits.test.ts
// fails while it is stale.

const n = (value: number) => value.toLocaleString('en-US');
const chars = (max: number) => `${n(max)} characters`;
const mib = (bytes: number) => `${bytes / 2 ** 20} MiB`;
const day = (time: number) => new Date(time).toISOString().slice(0, 10);
const CONFIGURATION = '(see [Configuration](#configuration))';

const duration = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;

/** `0, 5 s, 5 min, …, 7 × 10 h`: when each attempt is made, repeats of one delay counted. */
function retrySchedule(delays: number[], attempts: number): string {
  const runs: { delay: number; count: number }[] = [];
  for (const delay of delays) {
    const last = runs.at(-1);
    if (last?.delay === delay) last.count++;
    else runs.push({ delay, count: 1 });
  }
  const total = delays.reduce((sum, delay) => sum + delay, 0);
  const steps = [
    '0',
    ...runs.map(({ delay, count }) => (count > 1 ? `${count} × ${duration(delay)}` : duration(delay))),
  ];
  const span =
    total >= 86_400_000 ? `${(total / 86_400_000).toFixed(1)} days` : `${(total / 3_600_000).toFixed(1)} hours`;
  return `${attempts} over about ${span} (${steps.join(', ')})`;
}

/** Limit, value, error: one row each. */
const rows = (): [string, string, string][] => [
  [
    'Page size: REST `limit`, GraphQL `first`/`last`',
    `1 to ${n(MAX_PAGE_SIZE)}, default ${n(DEFAULT_PAGE_SIZE)}`,
    '`422` `loc: ["query","limit"]`; GraphQL `BAD_USER_INPUT` (`OUT_OF_RANGE`)',
  ],
  ['Request body', `\`BODY_LIMIT\` ${CONFIGURATION}`, '`413`'],
  [
    'GraphQL query depth (fields inside fields; fragments no level of their own)',
    n(MAX_QUERY_DEPTH),
    '`400`, `QUERY_TOO_COMPLEX` (`limit: "depth"`)',
  ],
  [
    'GraphQL document tokens (a batch: its documents together)',
    n(MAX_QUERY_TOKENS),
    '`400`, `QUERY_TOO_COMPLEX` (`limit: "tokens"`)',
  ],
  [
    'GraphQL aliases per operation (a batch: its operations together)',
    `${n(DEFAULT_MAX_QUERY_ALIASES)} (\`GRAPHQL_MAX_ALIASES\`)`,
    '`400`, `QUERY_TOO_COMPLEX` (`limit: "aliases"`)',
  ],
  ['GraphQL directives per operation', n(MAX_QUERY_DIRECTIVES), '`400`, `QUERY_TOO_COMPLEX` (`limit: "directives"`)'],
  [
    'GraphQL cost per operation, a batch its operations together (scalar 1, object 2, ×1.5 per level, lists × `first`/`last`)',
    n(MAX_QUERY_COST),
    '`400`, `QUERY_TOO_COMPLEX` (`limit: "cost"`)',
  ],
  [
    'GraphQL operations per batched request (each counts against the rate limit)',
    n(MAX_BATCH_OPERATIONS),
    '`400`, `TOO_MANY_OPERATIONS`',
  ],
  [
    "API keys' callers, organizations' settings and users each instance keeps between requests",
    `${n(SHARED_CACHE_ENTRIES)} of each, oldest dropped first; ${n(SHARED_CACHE_TTL_SECONDS)} s at most by default (\`SHARED_CACHE_SECONDS\`), and forgotten when a change to them commits on any instance`,
    'read again from the database',
  ],
  [
    'Statement texts each instance prepares (PostgreSQL keeps them, parsed and planned, on each connection)',
    `the first ${n(MAX_PREPARED_STATEMENTS)}`,
    'sent unnamed: parsed and planned each time',
  ],
  [
    'Automatic persisted queries remembered per instance',
    `${n(MAX_PERSISTED_QUERIES)}, least recently used dropped first`,
    '`400`, `PERSISTED_QUERY_NOT_FOUND` (send the document again)',
  ],
  [
    'Requests per window (`RATE_LIMIT_WINDOW_SECONDS`, default 1 min), all instances together; a batched operation or an operation over WebSocket counts as a request',
    `per API key ${n(DEFAULT_RATE_LIMIT_API_KEY)} (\`RATE_LIMIT_API_KEY\`); per recipient link or session ${n(DEFAULT_RATE_LIMIT_LINK)} (\`RATE_LIMIT_LINK\`); per client address without a valid credential or link ${n(DEFAULT_RATE_LIMIT_ADDRESS)} (\`RATE_LIMIT_ADDRESS\`)`,
    "`429` with `Retry-After`, `RateLimit-*`; GraphQL `RATE_LIMITED` (over WebSocket, that operation's error)",
  ],
  [
    '`Idempotency-Key`',
    `1 to ${chars(MAX_IDEMPOTENCY_KEY)}, printable ASCII; remembered ${n(IDEMPOTENCY_KEY_HOURS)} h, with its call's writes (a refusal too)`,
    '`422` (other body, bad key); `409` while the first call runs',
  ],
  [
    'Request `name`, template `name`',
    MAX_REQUEST_NAME === MAX_TEMPLATE_NAME
      ? `1 to ${chars(MAX_REQUEST_NAME)}, not blank`
      : `1 to ${chars(MAX_REQUEST_NAME)} (templates ${n(MAX_TEMPLATE_NAME)}), not blank`,
    '`422` `string_too_long` / `string_too_short` / `too_short`',
  ],
  [
    'Request list `search` (GraphQL `requests(filter: {search})`)',
    chars(MAX_REQUEST_SEARCH),
    'GraphQL `BAD_USER_INPUT` (`OUT_OF_RANGE`)',
  ],
  ['Template `default_title`', chars(MAX_DEFAULT_TITLE), '`422` `string_too_long`'],
  ['`personal_message` (requests, templates)', chars(MAX_PERSONAL_MESSAGE), '`422` `string_too_long`'],
  ['`notes`', chars(MAX_NOTES), '`422` `string_too_long`'],
  ['`cloud_storage_folder`', chars(MAX_CLOUD_STORAGE_FOLDER), '`422` `string_too_long`'],
  ['Item `name`', `1 to ${chars(MAX_ITEM_NAME)} (not blank)`, '`422`'],
  ['Item `description`', chars(MAX_ITEM_DESCRIPTION), '`422`'],
  ['Item / question `answer`', chars(MAX_ANSWER), '`422`'],
  ['Rejection `message`', `1 to ${chars(MAX_REJECTION_MESSAGE)} (not blank)`, '`422`'],
  [
    'UPLOAD item rules',
    `${n(MAX_ACCEPT_ENTRIES)} accepted types; largest file up to \`MAX_UPLOAD_BYTES\`; files up to \`MAX_FILES_PER_ITEM\`; name pattern ${chars(MAX_FILE_NAME_PATTERN)}`,
    '`422`',
  ],
  [
    '`first_name`, `last_name` of recipients, contacts, users and contract signers',
    `${chars(MAX_PERSON_NAME)} each`,
    '`422` (users: GraphQL `userErrors`)',
  ],
  ['`email`', `${chars(MAX_EMAIL)}, \`name@domain.tld\` form`, '`422` `invalid`'],
  [
    '`phone`',
    `${chars(MAX_PHONE)}; an optional \`+\`, a digit, then 3 to 30 digits, spaces or \`().-\``,
    '`422` `invalid`',
  ],
  ['`question_text`, `question_answer`', chars(MAX_QUESTION), '`422`'],
  [
    '`recipients`',
    `1 to ${n(MAX_RECIPIENTS)} per request, no recipient twice`,
    '`422` `too_short` / `too_long` / `invalid`',
  ],
  [
    'Items per request',
    `${n(MAX_ITEMS)} (at creation and through \`POST …/items\`)`,
    '`422` `too_long` / `too_many` (`loc: ["body"]`)',
  ],
  ['`collaborators`', `${n(MAX_COLLABORATORS)}, no user twice`, '`422` `too_long` / `invalid`'],
  [
    '`user_metadata`',
    `${n(MAX_METADATA_KEYS)} keys; keys 1 to ${chars(MAX_METADATA_KEY)}; values strings of up to ${chars(MAX_METADATA_VALUE)}`,
    '`422` `too_long` / `invalid` / `string_too_long` / `string_type`',
  ],
  ['`reminder_schedule`', `${n(MAX_REMINDER_SCHEDULE)} entries; \`message\` ${chars(MAX_REMINDER_MESSAGE)}`, '`422`'],
  [
    '`reminders` (requests, templates)',
    `integer ${n(MIN_REMINDERS)} to ${n(MAX_REMINDERS)}`,
    '`422` `greater_than_equal` / `less_than_equal`',
  ],
  ['Template `due_date_interval`', `0 to ${n(MAX_DUE_DATE_INTERVAL)} days`, '`422`'],
  ['Template items', n(MAX_TEMPLATE_ITEMS), '`422`'],
  [
    'Bulk send rows (`POST /templates/{id}/bulk-sends`, `bulkSendCreate`)',
    `1 to ${n(MAX_BULK_SEND_ROWS)} rows, a request each; a CSV file ${n(MAX_BULK_SEND_CSV_BYTES / 1024)} KiB at most`,
    '`422` `too_many` / `too_short` (nothing made); `413` for a larger file',
  ],
  [
    'Bulk send progress events (`bulkSendProgressed`)',
    `one after ${n(BULK_SEND_PROGRESS_ROWS)} rows tried, or after ${n(BULK_SEND_PROGRESS_MS)} ms with a row tried, whichever comes first`,
    'throttled: counts between events are skipped; `bulkSendCompleted` always follows',
  ],
  [
    "Requests a bulk send's job makes at once",
    `${n(BULK_SEND_CONCURRENCY)}, each in its own transaction`,
    'the others wait their turn',
  ],
  ['Form `name`', `1 to ${chars(MAX_FORM_NAME)}, not blank`, '`422`'],
  [
    'Form `fields` (forms, and the `form` of items)',
    `1 to ${n(MAX_FORM_FIELDS)} per form; names 1 to ${chars(MAX_FORM_FIELD_NAME)}; \`default_value\` ${chars(MAX_FORM_VALUE)}`,
    '`422`',
  ],
  [
    'Form answers (recipient)',
    `fields of the item's form; each value ${chars(MAX_FORM_VALUE)}; read-only fields keep their default`,
    '`422`',
  ],
  ['Dates', `${day(MIN_DATE)} to ${day(MAX_DATE)}`, '`422` `out_of_range`'],
  ['File upload', `\`MAX_UPLOAD_BYTES\` ${CONFIGURATION}; contracts ${mib(MAX_CONTRACT_BYTES)} at most`, '`413`'],
  ['Contract types', 'PDF, DOC (OLE compound file), DOCX, by detected content', '`415`'],
  [
    'PDF contracts, checked at upload and again before a preview or a signature',
    `${n(MAX_CONTRACT_OBJECTS)} objects (those in object streams included); streams decoding to ${mib(MAX_CONTRACT_INFLATED_BYTES)} together, of which object and cross-reference streams ${mib(MAX_CONTRACT_OBJECT_STREAM_BYTES)}`,
    '`422` `too_many` / `too_long` (`loc: ["body","file"]` at upload), nothing stored',
  ],
  [
    'Reading a PDF (upload check, preview, signature)',
    `in ${n(PDF_WORKERS)} worker threads (more PDFs wait their turn), each ${n(PDF_WORKER_HEAP_MB)} MiB of heap and ${n(PDF_TIME_BUDGET_SECONDS)} s per PDF, then stopped`,
    '`422` `invalid`',
  ],
  [
    'Files per item',
    `\`MAX_FILES_PER_ITEM\` ${CONFIGURATION} attachments, and as many documents; as many attachments per request; a body lists at most ${n(MAX_ATTACHMENT_IDS)} attachment ids`,
    '`422` `too_many` (`loc: ["body","file"]`)',
  ],
  [
    'Resumable (tus) uploads on `/r/{token}/api/uploads`',
    `\`MAX_UPLOAD_BYTES\` per file; ${n(MAX_PARTIAL_UPLOADS)} unfinished per link; an unfinished one is deleted ${n(PARTIAL_UPLOAD_EXPIRY_HOURS)} h after it began; \`Upload-Length\` required (no deferred length)`,
    '`413`; `429`; `404` on resuming; `400`',
  ],
  [
    'Unfinished resumable uploads: their declared `Upload-Length` together, per organization; all organizations and instances together',
    `\`UNFINISHED_UPLOAD_BYTES_ORGANIZATION\` (default ${n(DEFAULT_UNFINISHED_UPLOAD_BYTES_ORGANIZATION / 2 ** 30)} GiB); \`UNFINISHED_UPLOAD_BYTES\` (default ${n(DEFAULT_UNFINISHED_UPLOAD_BYTES / 2 ** 30)} GiB)`,
    '`413` for an upload larger than a limit alone; `429` while other unfinished uploads fill it',
  ],
  ['Empty file', 'refused', '`422`'],
  [
    'File names',
    `last path segment, no control characters, ${chars(MAX_FILE_NAME)} (the \`name\` query parameter of a raw upload: ${chars(MAX_RAW_UPLOAD_NAME)})`,
    'cut, not refused',
  ],
  [
    'Zip entry names',
    `one segment per folder and file, no \`..\` or separators, ${chars(MAX_ZIP_SEGMENT)}, unique`,
    'replaced and numbered, not refused',
  ],
  [
    'Contract `annotations`, `fields`',
    `${n(MAX_CONTRACT_PARTS)} each; \`page\` 1 to ${n(MAX_CONTRACT_PAGE)}; offsets 0 to ${n(MAX_LAYOUT_POINTS)} points; sizes above 0 to ${n(MAX_LAYOUT_POINTS)}; \`id\` ${chars(MAX_PART_ID)}; \`defaultValue\`, \`placeholder\` ${chars(MAX_PART_TEXT)}`,
    '`400`',
  ],
  [
    'E-signing',
    `drawn signature: a PNG of up to ${mib(MAX_SIGNATURE_PNG_BYTES)} and ${n(MAX_SIGNATURE_PNG_PIXELS)} pixels; typed signature 1 to ${chars(MAX_SIGNATURE_TEXT)}; TEXT field values 1 to ${chars(MAX_FIELD_VALUE)}; PDF contracts only`,
    '`422` (`signature`, `fields.<id>`)',
  ],
  ['Text anywhere', 'no NUL character, no unpaired UTF-16 surrogate (PostgreSQL would store U+FFFD instead)', '`422`'],
  ['Webhook topics per subscription', `1 to ${n(MAX_TOPICS)}, no repeats`, '`422`'],
  ['Webhook endpoint', `${chars(MAX_ENDPOINT_LENGTH)}, \`https\` (or \`http\` with private targets allowed)`, '`422`'],
  ['Webhook attempts', retrySchedule(RETRY_DELAYS_MS, MAX_ATTEMPTS), 'delivery `FAILED`'],
  [
    'Notification attempts (mail or SMS refused or unreachable)',
    `${retrySchedule(NOTIFICATION_RETRY_DELAYS_MS, NOTIFICATION_MAX_ATTEMPTS)}; an SMS vendor's \`Retry-After\` (with its \`429\` or \`5xx\`) is waited out when longer, up to ${duration(MAX_RETRY_AFTER_MS)}; its other \`4xx\` refuse the message at once`,
    'notification `FAILED`, `last_error` kept',
  ],
  [
    'Notifications handed over at once',
    `up to ${n(NOTIFICATIONS_PER_JOB)} per job (an event's invitations), over ${n(NOTIFICATION_CONCURRENCY)} mail server connections per instance; ${duration(NOTIFICATION_SEND_TIMEOUT_MS)} for the mail server to connect, greet and answer each command`,
    'attempt failed, retried',
  ],
  [
    'Timed job attempts (reminders, expiry, auto-close, escalations)',
    retrySchedule(JOB_RETRY_DELAYS_MS, JOB_MAX_ATTEMPTS),
    'job `FAILED`, `last_error` kept',
  ],
  [
    'Cloud storage (S3) connection',
    `\`access_key_id\` ${chars(MAX_ACCESS_KEY_ID)}, \`secret_access_key\` ${chars(MAX_SECRET_ACCESS_KEY)}, \`region\` ${chars(MAX_REGION)}, \`endpoint\` ${chars(MAX_S3_ENDPOINT)} (as webhook endpoints: \`https\`, public addresses unless private targets are allowed); the bucket must take a probe object within ${duration(PROBE_TIMEOUT_MS)}`,
    '`422`',
  ],
  [
    'Copies to cloud storage',
    `${duration(COPY_CONNECT_TIMEOUT_MS)} to connect, ${duration(COPY_IDLE_TIMEOUT_MS)} of silence at most; retried as timed jobs, ${retrySchedule(JOB_RETRY_DELAYS_MS, JOB_MAX_ATTEMPTS)}`,
    'job `FAILED`; each attempt in the activity log',
  ],
  [
    'Jobs run at once (event consumers, webhook deliveries, mail, timed work, cloud copies)',
    `\`JOB_CONCURRENCY\` per instance (default ${n(DEFAULT_JOB_CONCURRENCY)}, at most ${n(MAX_JOB_CONCURRENCY)}); an endpoint's deliveries about one request one after another, at most ${n(DELIVERY_QUEUES_PER_ENDPOINT)} of an endpoint at once; new jobs are taken at once, those that came due looked for every \`JOB_POLL_MS\` (default ${duration(DEFAULT_JOB_POLL_MS)}, ${duration(MIN_JOB_POLL_MS)} to ${duration(MAX_JOB_POLL_MS)})`,
    'waits for a free worker of any instance',
  ],
  [
    'Reminder deferral',
    `a recipient active in the portal within ${duration(REMINDER_DEFER_MS)} is reminded ${duration(REMINDER_DEFER_MS)} later`,
    'deferred, shown in the reminder list',
  ],
  [
    'Reminders to one recipient',
    `no periodic, scheduled or deferred reminder within ${duration(REMINDER_MIN_GAP_MS)} of the last one (one by hand always goes)`,
    'left out of that reminder',
  ],
  ['Scheduled reminders per request (`…/scheduled-reminders`)', n(MAX_SCHEDULED_REMINDERS), '`422` `too_many`'],
  [
    'Escalations per request; `after_days`',
    `${n(MAX_ESCALATIONS)}; ${n(MIN_ESCALATION_DAYS)} to ${n(MAX_ESCALATION_DAYS)} days`,
    '`422`',
  ],
  ['Notification subject', chars(MAX_SUBJECT_LENGTH), 'cut with `…`, not refused'],
  [
    'Notification text and HTML parts; SMS text',
    `${chars(MAX_BODY_LENGTH)} each; SMS ${chars(MAX_SMS_LENGTH)}`,
    'notification `FAILED`',
  ],
  ['Notification `last_error`', chars(MAX_NOTIFICATION_ERROR), 'cut'],
  [
    'Events waiting for one subscriber (not yet written to its socket)',
    `${MAX_PENDING_BYTES / 1024 / 1024} MiB`,
    'subscription ended with `RATE_LIMITED`',
  ],
  ['WebSocket message from a client', `${MAX_MESSAGE_BYTES / 1024} KiB`, 'connection closed with `1009`'],
  ['GraphQL operation names labelled on /metrics', n(MAX_METRIC_OPERATIONS), 'later names counted as `other`'],
  ['JSON body nesting', `${n(MAX_JSON_DEPTH)} levels`, '`422` `too_deep` (`loc: ["body"]`)'],
  [
    'Team and organization names',
    MAX_TEAM_NAME === MAX_ORGANIZATION_NAME
      ? `1 to ${chars(MAX_TEAM_NAME)}`
      : `teams 1 to ${chars(MAX_TEAM_NAME)}, organizations 1 to ${chars(MAX_ORGANIZATION_NAME)}`,
    'GraphQL `userErrors` / CLI error',
  ],
  ['API key `name`', chars(MAX_API_KEY_NAME), 'GraphQL `userErrors`'],
  [
    'Recipient one-time code',
    `${n(CODE_DIGITS)} digits, valid ${n(CODE_VALID_MINUTES)} min, used once`,
    '`401` `Wrong or expired code`',
  ],
  [
    'Code sends per recipient',
    `1 per ${n(CODE_RESEND_SECONDS)} s, ${n(MAX_CODES_PER_HOUR)} per hour`,
    '`429` with `Retry-After`',
  ],
  [
    'Recipient sign-in failures',
    `${n(MAX_SIGN_IN_FAILURES)} wrong answers or codes in a row lock that step for ${n(SIGN_IN_LOCK_MINUTES)} min`,
    '`429` with `Retry-After`',
  ],
  ['Recipient session', `${n(SESSION_HOURS)} hours, never past the request's \`expiration_date\``, '`401`'],
  ['Submission `comment`', chars(MAX_SUBMISSION_COMMENT), '`422`'],
  ["A user's sign-in link", `valid ${n(SIGN_IN_LINK_MINUTES)} min, used once`, '`401`'],
  [
    'Sign-in links asked for one e-mail address (counted whether or not it is a user’s)',
    `${n(SIGN_IN_LINKS_PER_EMAIL)} per ${n(SIGN_IN_WINDOW_MINUTES)} min`,
    '`429` with `Retry-After`',
  ],
  [
    'Sign-in calls from one client address (`POST /auth/sign-in` and `/auth/verify` together)',
    `${n(SIGN_IN_ATTEMPTS_PER_ADDRESS)} per ${n(SIGN_IN_WINDOW_MINUTES)} min`,
    '`429` with `Retry-After`',
  ],
  [
    "A contract's editor link (`annotationUrl`)",
    `opens the editor ${n(CONTRACT_EDITOR_LINK_HOURS)} hours (to the next whole hour) after it was read, as the user who read it`,
    '`410` (the page offers a new link)',
  ],
  [
    "A user's session (the `gather_session` cookie)",
    `ends ${n(SESSION_IDLE_HOURS)} hours after its last use (a use moves the end at most once per ${n(SESSION_TOUCH_SECONDS)} s) and ${n(SESSION_MAX_DAYS)} days after its sign-in`,
    '`401`',
  ],
  [
    'Organization logo',
    `${n(MAX_LOGO_BYTES / 1024)} KiB; PNG, JPEG or SVG by detected content (SVG rebuilt from an allow-list)`,
    '`413`; `415`',
  ],
  ['Logo caching (its URL changes with its content)', `${n(LOGO_CACHE_SECONDS / 86_400)} days, \`immutable\``, '—'],
  ['Branding `sender_name`', `1 to ${chars(MAX_SENDER_NAME_LENGTH)}`, '`422`'],
  ['Confirmation page `message`', `1 to ${chars(MAX_CONFIRMATION_MESSAGE_LENGTH)}`, '`422`'],
  ['Settings `default_expiration_days`, `retention_days`', `1 to ${n(MAX_SETTINGS_DAYS)} days, or null`, '`422`'],
  ['Share `title`; `customMessage`', `1 to ${chars(MAX_SHARE_TITLE)}; ${chars(MAX_SHARE_MESSAGE)}`, '`422`'],
  [
    'Share recipients; security question and answer',
    `1 to ${n(MAX_SHARE_RECIPIENTS)}; ${chars(MAX_SHARE_QUESTION)} each`,
    '`422`',
  ],
  [
    "Files per share; bytes of a share's files together (each file: `MAX_UPLOAD_BYTES`)",
    `${n(MAX_SHARE_FILES)}; ${n(MAX_SHARE_BYTES / 1024 ** 3)} GiB`,
    '`422` `too_many`; `413`',
  ],
  [
    "Downloads listed in a share's REST body (newest first; GraphQL pages through all)",
    n(MAX_LISTED_DOWNLOADS),
    'the rest counted in `downloadCount`',
  ],
];

function limitsTable(): string {
  return ['| Limit | Value | Error |', '|---|---|---|', ...rows().map((cells) => `| ${cells.join(' | ')} |`)].join(
    '\n',
  );
}

export const LIMITS_SECTION: ReadmeSection = {
  name: 'limits table',
  file: 'docs/operations.md',
  begin: '<!-- limits:begin (generated by `npm run docs:limits` from the *.limits.ts files; edit those) -->',
  end: '<!-- limits:end -->',
  render: limitsTable,
};

if (require.main === module) writeSection(LIMITS_SECTION);
