import { useEffect, useRef, useState } from 'react';
import { graphql } from '../../../generated/console';
import type { ConsoleRequestActivityQuery, ConsoleRequestQuery } from '../../../generated/console/graphql';
import { isDone } from '../../../modules/items/item.progress';
import { personName } from '../../shared/labels';
import { accepted, download, gql, localPath } from '../api';
import { fileSize } from '../forms';
import { pdfDrawer } from '../pdf-preview';
import { useAction, useLive, useQuery, useTitle } from '../hooks';
import { Link, navigate } from '../router';
import {
  Alert,
  confirmed,
  CopyButton,
  formatDate,
  formatDateTime,
  ItemStatus,
  Loading,
  Notice,
  Page,
  ProgressBar,
  StateBadge,
} from '../ui';

// One request, live: its recipients and their progress, each item with what was received (answers,
// filled forms, documents previewed inline and downloadable) and its review (verify, send back with a
// message), the request's actions (verify all, send back, remind, duplicate, close, delete, the zip),
// and its activity log. Any event on the request reads it again.

const RequestDocument = graphql(`
  query ConsoleRequest($id: ID!) {
    request(id: $id) {
      id
      name
      state
      percentComplete
      createdAt
      updatedAt
      dueDate
      expirationDate
      closedAt
      personalMessage
      notes
      reminders
      nextReminderAt
      viewerCanUpdate
      viewerCanDelete
      documentsDownloadUrl
      owner {
        id
        email
        firstName
        lastName
      }
      team {
        id
        name
      }
      template {
        id
        name
      }
      rejection {
        message
        itemIds
        rejectedAt
      }
      recipients {
        id
        firstName
        lastName
        email
        phone
        auth
        requestLink
      }
      items {
        id
        kind
        name
        description
        required
        status
        isNa
        verifiedAt
        documents {
          id
          name
          mimeType
          size
          downloadUrl
          createdAt
        }
        ... on QuestionItem {
          answer
        }
        ... on UploadItem {
          form {
            name
          }
          formAnswers {
            field
            value
          }
        }
        ... on ESignatureItem {
          contract {
            id
            name
          }
        }
      }
    }
  }
`);

const ActivityDocument = graphql(`
  query ConsoleRequestActivity($id: ID!, $after: String) {
    request(id: $id) {
      id
      activity(first: 25, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          id
          action
          createdAt
          details
          actor {
            type
            name
          }
        }
      }
    }
  }
`);

const LiveDocument = graphql(`
  subscription ConsoleRequestLive($id: ID!) {
    events(requestId: $id) {
      eventId
      topic
    }
  }
`);

const ItemVerifyDocument = graphql(`
  mutation ConsoleItemVerify($id: ID!, $requestId: ID!) {
    itemVerify(id: $id, requestId: $requestId) {
      item {
        id
        status
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const RequestRejectDocument = graphql(`
  mutation ConsoleRequestReject($id: ID!, $input: RequestRejectInput!) {
    requestReject(id: $id, input: $input) {
      request {
        id
        state
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const RequestVerifyDocument = graphql(`
  mutation ConsoleRequestVerify($id: ID!) {
    requestVerify(id: $id) {
      request {
        id
        state
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ReminderSendDocument = graphql(`
  mutation ConsoleReminderSend($requestId: ID!, $input: ReminderSendInput) {
    reminderSend(requestId: $requestId, input: $input) {
      reminder {
        id
        sentAt
        recipients {
          status
        }
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const LinkRegenerateDocument = graphql(`
  mutation ConsoleLinkRegenerate($id: ID!, $requestId: ID!) {
    recipientLinkRegenerate(id: $id, requestId: $requestId) {
      recipient {
        id
        requestLink
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const DuplicateDocument = graphql(`
  mutation ConsoleRequestDuplicate($id: ID!) {
    requestDuplicate(id: $id) {
      request {
        id
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const CloseDocument = graphql(`
  mutation ConsoleRequestClose($id: ID!) {
    requestClose(id: $id) {
      request {
        id
        state
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const DeleteDocument = graphql(`
  mutation ConsoleRequestDelete($id: ID!) {
    requestDelete(id: $id) {
      deletedRequestId
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const SendDocument = graphql(`
  mutation ConsoleRequestSend($id: ID!) {
    requestSend(id: $id) {
      request {
        id
        state
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

type Request = NonNullable<ConsoleRequestQuery['request']>;
type Item = Request['items'][number];
type Document = Item['documents'][number];
type ActivityPage = NonNullable<ConsoleRequestActivityQuery['request']>['activity'];

/** States in which a submission waits for the owner's review (verify or send back). */
const REVIEWABLE = new Set(['PARTIALLY_SUBMITTED', 'SUBMITTED', 'UPDATED_AND_SUBMITTED', 'COMPLETE_AND_SUBMITTED']);
const FINISHED = new Set(['VERIFIED', 'CLOSED', 'EXPIRED']);

const KIND_LABELS: Record<string, string> = { UPLOAD: 'Upload', QUESTION: 'Question', E_SIGNATURE: 'E-signature' };

const AUTH_LABELS: Record<string, string> = {
  NONE: 'the link alone',
  EMAIL: 'a code by email',
  SMS: 'a code by SMS',
  SECURITY_QUESTION: 'a security question',
  UNSET: 'the default',
};

/** Types shown inline; anything else is only downloaded (never opened as a page of this origin). */
const PREVIEWED = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Images this small are shown at once; PDFs and larger images when asked. */
const AUTO_PREVIEW_BYTES = 5 * 1024 * 1024;

/**
 * A document's preview from a copy of its bytes, typed by what the server detected: an image from a `blob:` URL,
 * a PDF's pages drawn by pdf.js (its script loaded on the first PDF preview: ../pdf-preview.ts).
 */
function DocumentPreview({ document }: { document: Document }) {
  const image = document.mimeType.startsWith('image/');
  const [open, setOpen] = useState(image && document.size <= AUTO_PREVIEW_BYTES);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pages = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    let made: string | null = null;
    let stop: (() => void) | null = null;
    let live = true;
    const show = async () => {
      const blob = await download(document.downloadUrl);
      if (!live) return;
      if (image) {
        made = URL.createObjectURL(new Blob([blob], { type: document.mimeType }));
        setUrl(made);
        return;
      }
      const [draw, bytes] = await Promise.all([pdfDrawer(), blob.arrayBuffer()]);
      if (!live || !pages.current) return;
      const drawn = await draw(pages.current, new Uint8Array(bytes), document.name).catch((err: unknown) => {
        throw new Error(`The PDF could not be shown: ${err instanceof Error ? err.message : String(err)}`);
      });
      if (live) stop = drawn;
      else drawn();
    };
    show().catch((err: unknown) => live && setError(err instanceof Error ? err.message : String(err)));
    return () => {
      live = false;
      stop?.();
      if (made) URL.revokeObjectURL(made);
      setUrl(null);
      setError(null);
    };
  }, [open, image, document.downloadUrl, document.mimeType, document.name]);
  return (
    <li className="document" data-document={document.id}>
      <div className="document-head">
        <span className="document-name">{document.name}</span>
        <span className="muted">
          {fileSize(document.size)} · {formatDateTime(document.createdAt)}
        </span>
        <span className="actions">
          {PREVIEWED.has(document.mimeType) && (
            <button type="button" className="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? 'Hide preview' : 'Preview'}
            </button>
          )}
          <a className="button secondary" href={localPath(document.downloadUrl)} download={document.name}>
            Download<span className="visually-hidden"> {document.name}</span>
          </a>
        </span>
      </div>
      {open && error && <Alert>{error}</Alert>}
      {open && url && <img className="preview-image" src={url} alt={`Preview of ${document.name}`} />}
      {open && !image && <div className="preview-pdf" ref={pages} />}
    </li>
  );
}

function ItemCard({
  item,
  request,
  reviewable,
  onChanged,
}: {
  item: Item;
  request: Request;
  reviewable: boolean;
  onChanged: (message: string) => void;
}) {
  const action = useAction();
  const [rejecting, setRejecting] = useState(false);
  const [message, setMessage] = useState('');
  const verify = () =>
    action.run(async () => {
      accepted((await gql(ItemVerifyDocument, { id: item.id, requestId: request.id })).itemVerify);
      onChanged(`${item.name}: verified`);
    });
  const reject = () =>
    action.run(async () => {
      accepted(
        (await gql(RequestRejectDocument, { id: request.id, input: { message, itemIds: [item.id] } })).requestReject,
      );
      setRejecting(false);
      setMessage('');
      onChanged(`${item.name}: sent back to the recipients`);
    });
  const rejectedNow = request.rejection?.itemIds.includes(item.id) && item.status === 'REJECTED';
  return (
    <li className="item-card" data-item={item.id} data-status={item.status}>
      <div className="item-head">
        <h3>
          {item.name}
          {item.required && <span className="muted"> (required)</span>}
        </h3>
        <ItemStatus status={item.status} isNa={item.isNa} />
      </div>
      <p className="muted">
        {KIND_LABELS[item.kind] ?? item.kind}
        {item.kind === 'E_SIGNATURE' && 'contract' in item && item.contract && ` · ${item.contract.name}`}
        {'form' in item && item.form && ` · form ${item.form.name}`}
        {item.verifiedAt && ` · verified ${formatDateTime(item.verifiedAt)}`}
      </p>
      {item.description && <p>{item.description}</p>}
      {rejectedNow && request.rejection && <p className="rejection">Sent back: “{request.rejection.message}”</p>}
      {'answer' in item && item.kind === 'QUESTION' && (
        <div className="answer">
          <span className="label">Answer</span>
          {item.answer ? <p className="answer-text">{item.answer}</p> : <p className="muted">Not answered yet.</p>}
        </div>
      )}
      {'formAnswers' in item && item.formAnswers && item.formAnswers.length > 0 && (
        <dl className="form-answers">
          {item.formAnswers.map((answer) => (
            <div key={answer.field}>
              <dt>{answer.field}</dt>
              <dd>{answer.value || '—'}</dd>
            </div>
          ))}
        </dl>
      )}
      {item.documents.length > 0 ? (
        <ul className="documents" aria-label={`Documents of ${item.name}`}>
          {item.documents.map((document) => (
            <DocumentPreview key={document.id} document={document} />
          ))}
        </ul>
      ) : (
        item.kind !== 'QUESTION' && <p className="muted">No document yet.</p>
      )}
      {request.viewerCanUpdate && (
        <div className="actions">
          {item.status === 'COMPLETE' && (
            <button type="button" onClick={() => void verify()} disabled={action.busy}>
              Verify<span className="visually-hidden"> {item.name}</span>
            </button>
          )}
          {reviewable && item.status !== 'REJECTED' && (
            <button
              type="button"
              className="secondary"
              aria-expanded={rejecting}
              onClick={() => setRejecting(!rejecting)}
            >
              Send back…<span className="visually-hidden"> {item.name}</span>
            </button>
          )}
        </div>
      )}
      {rejecting && (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void reject();
          }}
        >
          <label htmlFor={`reject-${item.id}`}>What should the recipients change in “{item.name}”?</label>
          <textarea
            id={`reject-${item.id}`}
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            rows={2}
            maxLength={5000}
            required
          />
          <div className="actions">
            <button type="submit" disabled={action.busy || !message.trim()}>
              Send back
            </button>
            <button type="button" className="secondary" onClick={() => setRejecting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <Alert>{action.error}</Alert>
    </li>
  );
}

function Recipients({ request, onChanged }: { request: Request; onChanged: (message: string) => void }) {
  const action = useAction();
  const done = request.items.filter(isDone).length;
  const regenerate = (recipient: Request['recipients'][number]) => {
    if (
      !confirmed(
        `Give ${personName(recipient)} a new link? The current one stops working, and the new one is sent to them.`,
      )
    )
      return;
    void action.run(async () => {
      accepted(
        (await gql(LinkRegenerateDocument, { id: recipient.id, requestId: request.id })).recipientLinkRegenerate,
      );
      onChanged(`${personName(recipient)} has a new link`);
    });
  };
  return (
    <section aria-labelledby="recipients-title">
      <h2 id="recipients-title">Recipients</h2>
      <ul className="recipient-cards">
        {request.recipients.map((recipient) => (
          <li key={recipient.id} className="card recipient-card" data-recipient={recipient.id}>
            <div className="item-head">
              <h3>{personName(recipient)}</h3>
              <span className="recipient-progress">
                {done} of {request.items.length} items done
              </span>
            </div>
            <p className="muted">
              {[recipient.email, recipient.phone].filter(Boolean).join(' · ')} · signs in with{' '}
              {AUTH_LABELS[recipient.auth] ?? recipient.auth}
            </p>
            <ul className="progress-items" aria-label={`Progress of ${personName(recipient)}`}>
              {request.items.map((item) => (
                <li key={item.id}>
                  <ItemStatus status={item.status} isNa={item.isNa} /> {item.name}
                </li>
              ))}
            </ul>
            <div className="link-row">
              <label htmlFor={`link-${recipient.id}`}>Link</label>
              <input
                id={`link-${recipient.id}`}
                readOnly
                value={recipient.requestLink}
                onFocus={(event) => event.target.select()}
              />
              <CopyButton value={recipient.requestLink} label={`Copy link`} />
              {request.viewerCanUpdate && !FINISHED.has(request.state) && (
                <button
                  type="button"
                  className="secondary"
                  disabled={action.busy}
                  onClick={() => regenerate(recipient)}
                >
                  New link<span className="visually-hidden"> for {personName(recipient)}</span>
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <Alert>{action.error}</Alert>
    </section>
  );
}

const ACTION_LABELS: Record<string, string> = {
  'request.created': 'created the request',
  'request.updated': 'changed the request',
  'request.sent': 'sent the request',
  'request.submitted': 'submitted',
  'request.completed': 'completed every item',
  'request.verified': 'verified the request',
  'request.rejected': 'sent the request back',
  'request.closed': 'closed the request',
  'request.expired': 'the request expired',
  'request.reminder_sent': 'sent a reminder',
  'item.created': 'added an item',
  'item.updated': 'updated an item',
  'item.deleted': 'removed an item',
  'item.verified': 'verified an item',
  'document.uploaded': 'uploaded a document',
  'contract.signed': 'signed a contract',
  'link.regenerated': 'made a new link',
  'recipient.opened': 'opened the link',
  'recipient.signed_in': 'signed in',
};

function detailsOf(details: unknown, items: Request['items']): string {
  if (!details || typeof details !== 'object') return '';
  const d = details as Record<string, unknown>;
  const parts: string[] = [];
  const item = typeof d.item_id === 'string' ? items.find((i) => i.id === d.item_id) : undefined;
  if (item) parts.push(item.name);
  if (Array.isArray(d.updated) && d.updated.length) parts.push(d.updated.join(', '));
  if (typeof d.message === 'string') parts.push(`“${d.message}”`);
  return parts.join(' · ');
}

function Activity({ request, version }: { request: Request; version: number }) {
  // The first page follows the request (read again with it); older pages are added below it.
  const first = useQuery(ActivityDocument, { id: request.id, after: null }, version);
  const [older, setOlder] = useState<ActivityPage[]>([]);
  const action = useAction();
  useEffect(() => setOlder([]), [version]);
  const page = first.data?.request?.activity;
  const last = older.length ? older[older.length - 1] : page;
  const entries = [page, ...older].flatMap((p) => p?.nodes ?? []);
  const loadOlder = (after: string | null) =>
    void action.run(async () => {
      const next = (await gql(ActivityDocument, { id: request.id, after })).request?.activity;
      if (next) setOlder((pages) => [...pages, next]);
    });
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity {page && <small>{page.totalCount} entries, newest first</small>}</h2>
      {!page ? (
        <Loading />
      ) : (
        <ol className="feed activity">
          {entries.map((entry) => (
            <li key={entry.id} className="event" data-action={entry.action}>
              <time className="event-time" dateTime={entry.createdAt}>
                {formatDateTime(entry.createdAt)}
              </time>
              <span className="event-subject">
                <strong>{entry.actor.name ?? (entry.actor.type === 'SYSTEM' ? 'Gather' : entry.actor.type)}</strong>{' '}
                {ACTION_LABELS[entry.action] ?? entry.action}
                {detailsOf(entry.details, request.items) && (
                  <span className="muted"> · {detailsOf(entry.details, request.items)}</span>
                )}
              </span>
            </li>
          ))}
        </ol>
      )}
      {last?.pageInfo.hasNextPage && (
        <button
          type="button"
          className="secondary"
          disabled={action.busy}
          onClick={() => loadOlder(last.pageInfo.endCursor)}
        >
          Older entries
        </button>
      )}
      <Alert>{action.error}</Alert>
    </section>
  );
}

function RequestActions({ request, onChanged }: { request: Request; onChanged: (message: string) => void }) {
  const action = useAction();
  const [panel, setPanel] = useState<'reject' | 'remind' | null>(null);
  const [message, setMessage] = useState('');
  const [rejected, setRejected] = useState<string[]>([]);
  const reviewable = REVIEWABLE.has(request.state);
  const open = !FINISHED.has(request.state);
  const toggle = (which: 'reject' | 'remind') => {
    setPanel(panel === which ? null : which);
    setMessage('');
    setRejected(request.items.filter((item) => item.status !== 'VERIFIED').map((item) => item.id));
  };
  const run = (work: () => Promise<string | void>) =>
    void action.run(async () => {
      const said = await work();
      if (said) onChanged(said);
    });
  const hasAnything = request.items.some(
    (item) =>
      item.documents.length > 0 || ('answer' in item && item.answer) || ('formAnswers' in item && item.formAnswers),
  );
  return (
    <>
      <div className="actions request-actions">
        {request.state === 'PRE_LINK_GENERATED' && request.viewerCanUpdate && (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              run(async () => {
                accepted((await gql(SendDocument, { id: request.id })).requestSend);
                return 'Sent to the recipients';
              })
            }
          >
            Send now
          </button>
        )}
        {reviewable && request.viewerCanUpdate && (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              confirmed('Verify every item of this request?') &&
              run(async () => {
                accepted((await gql(RequestVerifyDocument, { id: request.id })).requestVerify);
                return 'Verified';
              })
            }
          >
            Verify all
          </button>
        )}
        {reviewable && request.viewerCanUpdate && (
          <button
            type="button"
            className="secondary"
            aria-expanded={panel === 'reject'}
            onClick={() => toggle('reject')}
          >
            Send back…
          </button>
        )}
        {open && request.viewerCanUpdate && request.state !== 'PRE_LINK_GENERATED' && (
          <button
            type="button"
            className="secondary"
            aria-expanded={panel === 'remind'}
            onClick={() => toggle('remind')}
          >
            Send a reminder…
          </button>
        )}
        {hasAnything ? (
          <a className="button secondary" href={localPath(request.documentsDownloadUrl)} download>
            Download all (zip)
          </a>
        ) : (
          <button type="button" className="secondary" disabled title="Nothing received yet">
            Download all (zip)
          </button>
        )}
        <button
          type="button"
          className="secondary"
          disabled={action.busy}
          onClick={() =>
            run(async () => {
              const copy = accepted((await gql(DuplicateDocument, { id: request.id })).requestDuplicate);
              if (copy.request) navigate(`/app/requests/${copy.request.id}`);
            })
          }
        >
          Duplicate
        </button>
        {open && request.viewerCanUpdate && (
          <button
            type="button"
            className="secondary"
            disabled={action.busy}
            onClick={() =>
              confirmed('Close this request? Recipients can no longer submit.') &&
              run(async () => {
                accepted((await gql(CloseDocument, { id: request.id })).requestClose);
                return 'Closed';
              })
            }
          >
            Close
          </button>
        )}
        {request.viewerCanDelete && (
          <button
            type="button"
            className="danger"
            disabled={action.busy}
            onClick={() =>
              confirmed(`Delete “${request.name}” with its documents? This cannot be undone.`) &&
              run(async () => {
                accepted((await gql(DeleteDocument, { id: request.id })).requestDelete);
                navigate('/app/requests');
              })
            }
          >
            Delete
          </button>
        )}
      </div>
      {panel === 'reject' && (
        <form
          className="card inline-form"
          aria-label="Send back for changes"
          onSubmit={(event) => {
            event.preventDefault();
            run(async () => {
              accepted(
                (await gql(RequestRejectDocument, { id: request.id, input: { message, itemIds: rejected } }))
                  .requestReject,
              );
              setPanel(null);
              return 'Sent back to the recipients';
            });
          }}
        >
          <fieldset>
            <legend>Items to redo</legend>
            {request.items.map((item) => (
              <label key={item.id} className="checkbox">
                <input
                  type="checkbox"
                  checked={rejected.includes(item.id)}
                  onChange={(event) =>
                    setRejected(event.target.checked ? [...rejected, item.id] : rejected.filter((id) => id !== item.id))
                  }
                />{' '}
                {item.name}
              </label>
            ))}
          </fieldset>
          <label htmlFor="reject-message">Message to the recipients</label>
          <textarea
            id="reject-message"
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            rows={3}
            maxLength={5000}
            required
          />
          <div className="actions">
            <button type="submit" disabled={action.busy || !message.trim() || rejected.length === 0}>
              Send back
            </button>
            <button type="button" className="secondary" onClick={() => setPanel(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {panel === 'remind' && (
        <form
          className="card inline-form"
          aria-label="Send a reminder"
          onSubmit={(event) => {
            event.preventDefault();
            run(async () => {
              const sent = accepted(
                (
                  await gql(ReminderSendDocument, {
                    requestId: request.id,
                    input: message.trim() ? { message: message.trim() } : null,
                  })
                ).reminderSend,
              );
              setPanel(null);
              const count = sent.reminder?.recipients.filter((r) => r.status === 'SENT').length ?? 0;
              return `Reminder sent to ${count} ${count === 1 ? 'recipient' : 'recipients'}`;
            });
          }}
        >
          <label htmlFor="remind-message">Message (optional)</label>
          <textarea
            id="remind-message"
            value={message}
            onChange={(event) => setMessage(event.target.value)}
            rows={2}
            maxLength={2000}
          />
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Send reminder
            </button>
            <button type="button" className="secondary" onClick={() => setPanel(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <Alert>{action.error}</Alert>
    </>
  );
}

export function RequestScreen({ id }: { id: string }) {
  // Every event on the request, and every change made here, reads it (and its activity) again.
  const [version, setVersion] = useState(0);
  const loaded = useQuery(RequestDocument, { id }, version);
  const [said, setSaid] = useState<string | null>(null);
  const request = loaded.data?.request;
  useTitle(request?.name ?? 'Request');
  useLive(LiveDocument, { id }, () => setVersion((v) => v + 1), 80);
  const changed = (message: string) => {
    setSaid(message);
    setVersion((v) => v + 1);
  };
  if (!loaded.data) {
    return loaded.error ? (
      <Page title="Request">
        <Alert>{loaded.error.message}</Alert>
      </Page>
    ) : (
      <Loading />
    );
  }
  if (!request) {
    return (
      <Page title="Request not found">
        <p>
          This request does not exist, was deleted, or is not yours to see.{' '}
          <Link to="/app/requests">Back to the requests</Link>.
        </p>
      </Page>
    );
  }
  const reviewable = REVIEWABLE.has(request.state);
  return (
    <Page title={request.name} actions={<StateBadge state={request.state} />}>
      <p className="breadcrumbs">
        <Link to="/app/requests">Requests</Link> › {request.name}
      </p>
      <ProgressBar percent={request.percentComplete} label="Complete" />
      <dl className="facts">
        <div>
          <dt>Owner</dt>
          <dd>
            {personName(request.owner, request.owner.email)}
            {request.team && ` · ${request.team.name}`}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(request.createdAt)}</dd>
        </div>
        <div>
          <dt>Due</dt>
          <dd>{formatDate(request.dueDate)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatDate(request.expirationDate)}</dd>
        </div>
        <div>
          <dt>Reminders</dt>
          <dd>
            {request.reminders > 0 ? `every ${request.reminders} days` : 'none'}
            {request.nextReminderAt && ` · next ${formatDateTime(request.nextReminderAt)}`}
          </dd>
        </div>
        {request.template && (
          <div>
            <dt>Template</dt>
            <dd>
              <Link to={`/app/templates/${request.template.id}`}>{request.template.name}</Link>
            </dd>
          </div>
        )}
      </dl>
      {request.personalMessage && <p className="message">{request.personalMessage}</p>}
      {request.notes && <p className="muted">Notes: {request.notes}</p>}
      <RequestActions request={request} onChanged={changed} />
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      <Recipients request={request} onChanged={changed} />
      <section aria-labelledby="items-title">
        <h2 id="items-title">Items</h2>
        <ol className="item-cards">
          {request.items.map((item) => (
            <ItemCard key={item.id} item={item} request={request} reviewable={reviewable} onChanged={changed} />
          ))}
        </ol>
      </section>
      <Activity request={request} version={version} />
    </Page>
  );
}
