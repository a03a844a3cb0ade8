import { useState } from 'react';
import { graphql } from '../../../generated/console';
import type { WebhookDeliveryStatus, WebhookTopic } from '../../../generated/console/graphql';
import { TOPIC_GRAPHQL_VALUES } from '../../../modules/events/event.topics';
import { accepted, ApiError, gql, type UserError } from '../api';
import { useAction, useQuery, useTitle } from '../hooks';
import { Link, navigate } from '../router';
import { Alert, confirmed, CopyButton, FieldNote, Form, formatDateTime, Loading, Notice, Page, TextField } from '../ui';

// Webhooks (ADMIN): the endpoints, a new one with its signing secret shown once, and one endpoint's
// topics, state, secret rotation and delivery log, each delivery with its attempts and a replay.

const TOPICS = Object.keys(TOPIC_GRAPHQL_VALUES) as WebhookTopic[];
const topicLabel = (topic: string) => TOPIC_GRAPHQL_VALUES[topic] ?? topic;

const WebhooksDocument = graphql(`
  query ConsoleWebhooks {
    webhooks(first: 100) {
      nodes {
        id
        endpoint
        topics
        enabled
        disabledReason
        failingSince
        createdAt
      }
    }
  }
`);

const WebhookDocument = graphql(`
  query ConsoleWebhook($id: ID!, $status: WebhookDeliveryStatus, $after: String) {
    webhook(id: $id) {
      id
      endpoint
      topics
      enabled
      disabledAt
      disabledReason
      failingSince
      previousSecretExpiresAt
      createdAt
      deliveries(first: 25, after: $after, status: $status) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        nodes {
          id
          eventId
          topic
          status
          attemptCount
          nextAttemptAt
          lastStatusCode
          lastError
          createdAt
          attempts {
            id
            attemptedAt
            statusCode
            latencyMs
            error
          }
        }
      }
    }
  }
`);

const CreateDocument = graphql(`
  mutation ConsoleWebhookCreate($input: WebhookCreateInput!) {
    webhookCreate(input: $input) {
      webhook {
        id
      }
      secret
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const UpdateDocument = graphql(`
  mutation ConsoleWebhookUpdate($id: ID!, $input: WebhookUpdateInput!) {
    webhookUpdate(id: $id, input: $input) {
      webhook {
        id
        enabled
        topics
        endpoint
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
  mutation ConsoleWebhookDelete($id: ID!) {
    webhookDelete(id: $id) {
      deletedWebhookId
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const RotateDocument = graphql(`
  mutation ConsoleWebhookSecretRotate($id: ID!) {
    webhookSecretRotate(id: $id) {
      secret
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const RetryDocument = graphql(`
  mutation ConsoleWebhookDeliveryRetry($id: ID!, $webhookId: ID!) {
    webhookDeliveryRetry(id: $id, webhookId: $webhookId) {
      delivery {
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

/** A signing secret, shown once: copy it now. */
function SecretOnce({ secret, what }: { secret: string; what: string }) {
  return (
    <div className="card" role="region" aria-label="Signing secret">
      <p>
        <strong>{what}</strong> It is shown only now: store it where your endpoint reads it.
      </p>
      <p className="secret" id="webhook-secret">
        {secret}
      </p>
      <CopyButton value={secret} label="Copy the secret" />
    </div>
  );
}

function TopicChoices({
  name,
  chosen,
  onChange,
}: {
  name: string;
  chosen: WebhookTopic[];
  onChange: (topics: WebhookTopic[]) => void;
}) {
  return (
    <fieldset>
      <legend>Topics</legend>
      <FieldNote name={name} />
      <div className="topic-grid">
        {TOPICS.map((topic) => (
          <label key={topic} className="checkbox">
            <input
              type="checkbox"
              checked={chosen.includes(topic)}
              onChange={(event) =>
                onChange(event.target.checked ? [...chosen, topic] : chosen.filter((t) => t !== topic))
              }
            />{' '}
            {topicLabel(topic)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

const placed = (err: unknown, setErrors: (errors: readonly UserError[]) => void): boolean => {
  if (err instanceof ApiError && err.userErrors.length) {
    setErrors(err.userErrors);
    return true;
  }
  return false;
};

export function WebhooksScreen() {
  useTitle('Webhooks');
  const [version, setVersion] = useState(0);
  const list = useQuery(WebhooksDocument, {}, version);
  const [endpoint, setEndpoint] = useState('');
  const [topics, setTopics] = useState<WebhookTopic[]>(['REQUEST_COMPLETED']);
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction();
  const create = () =>
    void action.run(async () => {
      setErrors([]);
      try {
        const made = (await gql(CreateDocument, { input: { endpoint: endpoint.trim(), topics } })).webhookCreate;
        if (made.userErrors.length) return setErrors(made.userErrors);
        setSecret(made.secret);
        setEndpoint('');
        setVersion((v) => v + 1);
      } catch (err) {
        if (!placed(err, setErrors)) throw err;
      }
    });
  const hooks = list.data?.webhooks.nodes;
  return (
    <Page title="Webhooks">
      <p className="muted">
        Gather posts each event of the chosen topics to your endpoint, signed as Standard Webhooks specifies.
      </p>
      <Alert>{list.error?.message}</Alert>
      {!hooks ? (
        <Loading />
      ) : hooks.length === 0 ? (
        <p className="empty">No webhooks yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Webhooks</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Topics</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {hooks.map((hook) => (
                <tr key={hook.id} data-webhook={hook.id}>
                  <td data-label="Endpoint" className="wrap">
                    <Link to={`/app/webhooks/${hook.id}`}>{hook.endpoint}</Link>
                  </td>
                  <td data-label="Topics">{hook.topics.map(topicLabel).join(', ')}</td>
                  <td data-label="State">
                    <div>
                      {hook.enabled ? 'Enabled' : `Disabled${hook.disabledReason ? `: ${hook.disabledReason}` : ''}`}
                      {hook.failingSince && (
                        <div className="field-error">Failing since {formatDateTime(hook.failingSince)}</div>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {secret && <SecretOnce secret={secret} what="The webhook was created. Its signing secret:" />}
      <Form errors={errors} onSubmit={create} label="New webhook">
        <section className="card" aria-labelledby="new-webhook-title">
          <h2 id="new-webhook-title">New webhook</h2>
          <TextField
            label="Endpoint URL"
            name="input.endpoint"
            type="url"
            value={endpoint}
            onValue={setEndpoint}
            placeholder="https://example.com/gather-events"
            required
          />
          <TopicChoices name="input.topics" chosen={topics} onChange={setTopics} />
          <Alert>{action.error}</Alert>
          <button type="submit" disabled={action.busy}>
            Create webhook
          </button>
        </section>
      </Form>
    </Page>
  );
}

const STATUS_FILTERS: ReadonlyArray<{ value: WebhookDeliveryStatus | ''; label: string }> = [
  { value: '', label: 'All' },
  { value: 'PENDING', label: 'Pending' },
  { value: 'SUCCEEDED', label: 'Succeeded' },
  { value: 'FAILED', label: 'Failed' },
];

export function WebhookScreen({ id }: { id: string }) {
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  const [after, setAfter] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const loaded = useQuery(WebhookDocument, { id, status: status || null, after }, version);
  const hook = loaded.data?.webhook;
  useTitle(hook?.endpoint ?? 'Webhook');
  const [topics, setTopics] = useState<WebhookTopic[] | null>(null);
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const action = useAction();
  const changed = (message: string) => {
    setSaid(message);
    setVersion((v) => v + 1);
  };
  if (!hook) {
    if (loaded.data)
      return (
        <Page title="Webhook not found">
          <p>
            This webhook does not exist. <Link to="/app/webhooks">Back to the webhooks</Link>.
          </p>
        </Page>
      );
    return loaded.error ? (
      <Page title="Webhook">
        <Alert>{loaded.error.message}</Alert>
      </Page>
    ) : (
      <Loading />
    );
  }
  const chosen = topics ?? hook.topics;
  const update = (input: { topics?: WebhookTopic[]; enabled?: boolean }, message: string) =>
    void action.run(async () => {
      setErrors([]);
      try {
        const payload = (await gql(UpdateDocument, { id, input })).webhookUpdate;
        if (payload.userErrors.length) return setErrors(payload.userErrors);
        setTopics(null);
        changed(message);
      } catch (err) {
        if (!placed(err, setErrors)) throw err;
      }
    });
  const deliveries = hook.deliveries;
  return (
    <Page title="Webhook">
      <p className="breadcrumbs">
        <Link to="/app/webhooks">Webhooks</Link> › <span className="wrap">{hook.endpoint}</span>
      </p>
      <dl className="facts">
        <div>
          <dt>Endpoint</dt>
          <dd className="wrap">{hook.endpoint}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>
            {hook.enabled ? 'Enabled' : `Disabled ${formatDateTime(hook.disabledAt)}`}
            {hook.disabledReason && ` (${hook.disabledReason})`}
          </dd>
        </div>
        {hook.failingSince && (
          <div>
            <dt>Failing since</dt>
            <dd>{formatDateTime(hook.failingSince)}</dd>
          </div>
        )}
        {hook.previousSecretExpiresAt && (
          <div>
            <dt>Previous secret signs until</dt>
            <dd>{formatDateTime(hook.previousSecretExpiresAt)}</dd>
          </div>
        )}
      </dl>
      <div className="actions request-actions">
        <button
          type="button"
          className="secondary"
          disabled={action.busy}
          onClick={() => update({ enabled: !hook.enabled }, hook.enabled ? 'Disabled' : 'Enabled')}
        >
          {hook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={action.busy}
          onClick={() =>
            confirmed('Make a new signing secret? The current one keeps signing for a grace period.') &&
            void action.run(async () => {
              const rotated = accepted((await gql(RotateDocument, { id })).webhookSecretRotate);
              setSecret(rotated.secret);
              changed('A new secret was made');
            })
          }
        >
          New secret
        </button>
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() =>
            confirmed('Delete this webhook? Its deliveries stop.') &&
            void action.run(async () => {
              accepted((await gql(DeleteDocument, { id })).webhookDelete);
              navigate('/app/webhooks');
            })
          }
        >
          Delete
        </button>
      </div>
      <Alert>{action.error}</Alert>
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      {secret && <SecretOnce secret={secret} what="The new signing secret:" />}
      <Form errors={errors} onSubmit={() => update({ topics: chosen }, 'Topics saved')} label="Topics">
        <TopicChoices name="input.topics" chosen={chosen} onChange={setTopics} />
        <button type="submit" disabled={action.busy || topics === null}>
          Save topics
        </button>
      </Form>

      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">
          Deliveries <small>{deliveries.totalCount}, newest first</small>
        </h2>
        <div className="field inline-field">
          <label htmlFor="delivery-status">Show</label>
          <select
            id="delivery-status"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as WebhookDeliveryStatus | '');
              setAfter(null);
            }}
          >
            {STATUS_FILTERS.map((filter) => (
              <option key={filter.value} value={filter.value}>
                {filter.label}
              </option>
            ))}
          </select>
        </div>
        {deliveries.nodes.length === 0 ? (
          <p className="empty">No deliveries{status ? ' with this status' : ''}.</p>
        ) : (
          <ol className="plain-list deliveries">
            {deliveries.nodes.map((delivery) => (
              <li key={delivery.id} className="item-card" data-delivery={delivery.id} data-status={delivery.status}>
                <div className="item-head">
                  <h3>{topicLabel(delivery.topic)}</h3>
                  <span className={`badge delivery-${delivery.status}`}>{delivery.status.toLowerCase()}</span>
                </div>
                <p className="muted">
                  {formatDateTime(delivery.createdAt)} · {delivery.attemptCount}{' '}
                  {delivery.attemptCount === 1 ? 'attempt' : 'attempts'}
                  {delivery.lastStatusCode != null && ` · last answer ${delivery.lastStatusCode}`}
                  {delivery.nextAttemptAt && ` · next try ${formatDateTime(delivery.nextAttemptAt)}`}
                </p>
                {delivery.lastError && <p className="field-error">{delivery.lastError}</p>}
                <div className="actions">
                  <button
                    type="button"
                    className="secondary"
                    aria-expanded={open === delivery.id}
                    onClick={() => setOpen(open === delivery.id ? null : delivery.id)}
                  >
                    Attempts
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    disabled={action.busy}
                    onClick={() =>
                      void action.run(async () => {
                        accepted((await gql(RetryDocument, { id: delivery.id, webhookId: id })).webhookDeliveryRetry);
                        changed('Sent again');
                      })
                    }
                  >
                    Send again
                  </button>
                </div>
                {open === delivery.id && (
                  <div className="table-wrap">
                    <table>
                      <caption className="visually-hidden">Attempts</caption>
                      <thead>
                        <tr>
                          <th scope="col">When</th>
                          <th scope="col">Answer</th>
                          <th scope="col">Time</th>
                          <th scope="col">Error</th>
                        </tr>
                      </thead>
                      <tbody>
                        {delivery.attempts.map((attempt) => (
                          <tr key={attempt.id}>
                            <td>{formatDateTime(attempt.attemptedAt)}</td>
                            <td>{attempt.statusCode ?? '—'}</td>
                            <td>{attempt.latencyMs} ms</td>
                            <td className="wrap">{attempt.error ?? ''}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                )}
              </li>
            ))}
          </ol>
        )}
        <div className="pager">
          {after && (
            <button type="button" className="secondary" onClick={() => setAfter(null)}>
              Newest
            </button>
          )}
          {deliveries.pageInfo.hasNextPage && (
            <button type="button" className="secondary" onClick={() => setAfter(deliveries.pageInfo.endCursor)}>
              Older
            </button>
          )}
        </div>
      </section>
    </Page>
  );
}
