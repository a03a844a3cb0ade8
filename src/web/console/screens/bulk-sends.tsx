import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { graphql } from '../../../generated/console';
import { personName } from '../../shared/labels';
import { ApiError, rest, type UserError } from '../api';
import { useAction, useLive, useQuery, useTitle } from '../hooks';
import { Link, navigate } from '../router';
import { Alert, Form, formatDateTime, Loading, Notice, Page, ProgressBar, TextArea } from '../ui';
import { fileSize } from '../forms';

// Bulk send: one template to many recipients from a CSV (`/app/templates/{id}/send`), where the bulk sends
// stand (`/app/bulk-sends`) and one of them as its job makes the requests (`/app/bulk-sends/{id}`). The file
// goes to the REST CSV route, which checks every row before anything is made and names each problem's line.

/** What the CSV route reads (the REST guide's bulk send section); 1 MiB as the server's limit. */
const COLUMNS = 'first_name, last_name, email, phone, language, name, due_date, personal_message, user_metadata.<key>';
const MAX_CSV_BYTES = 1024 * 1024;
const SAMPLE = 'first_name,last_name,email,language\n';
/** How often a running bulk send is read again besides its events. */
const FOLLOW_MS = 3000;

// Read by name in the documents below (codegen appends it to each).
graphql(`
  fragment ConsoleBulkSendFields on BulkSend {
    id
    status
    total
    created
    failed
    createdAt
    completedAt
    template {
      id
      name
    }
    owner {
      email
      firstName
      lastName
    }
  }
`);

const TemplateNameDocument = graphql(`
  query ConsoleBulkSendTemplate($id: ID!) {
    template(id: $id) {
      id
      name
      items {
        id
      }
    }
  }
`);

const BulkSendDocument = graphql(`
  query ConsoleBulkSend($id: ID!) {
    bulkSend(id: $id) {
      ...ConsoleBulkSendFields
      failures {
        line
        message
      }
    }
  }
`);

const BulkSendsDocument = graphql(`
  query ConsoleBulkSends {
    bulkSends(first: 50) {
      nodes {
        ...ConsoleBulkSendFields
      }
    }
  }
`);

const ProgressedDocument = graphql(`
  subscription ConsoleBulkSendProgressed($id: ID!) {
    bulkSendProgressed(id: $id) {
      id
    }
  }
`);

const CompletedDocument = graphql(`
  subscription ConsoleBulkSendCompleted($id: ID!) {
    bulkSendCompleted(id: $id) {
      id
    }
  }
`);

const STATUS_LABELS: Record<string, string> = {
  QUEUED: 'Queued',
  RUNNING: 'Sending',
  COMPLETED: 'Done',
  FAILED: 'Stopped',
};

const percentDone = (send: { total: number; created: number; failed: number }) =>
  send.total ? ((send.created + send.failed) / send.total) * 100 : 100;

/** `/app/templates/{id}/send`: the template, a CSV to paste or choose, and the server's problems by line. */
export function BulkSendNewScreen({ templateId }: { templateId: string }) {
  const template = useQuery(TemplateNameDocument, { id: templateId });
  const [csv, setCsv] = useState(SAMPLE);
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const action = useAction();
  const name = template.data?.template?.name;
  useTitle(name ? `Send “${name}” to many` : 'Send to many');

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    if (file.size > MAX_CSV_BYTES)
      return setErrors([
        { field: ['csv'], message: `${file.name} is ${fileSize(file.size)}: at most 1 MiB.`, code: 'TOO_LARGE' },
      ]);
    setErrors([]);
    void file.text().then(setCsv);
  };
  const send = () =>
    void action.run(async () => {
      setErrors([]);
      try {
        const sent = await rest<{ id: string }>('POST', `/templates/${templateId}/bulk-sends/csv`, csv, 'text/csv');
        navigate(`/app/bulk-sends/${sent.id}`);
      } catch (err) {
        // Each row's problem names its line: all of them are shown at the text that holds the lines.
        if (err instanceof ApiError && err.userErrors.length)
          return setErrors(err.userErrors.map((error) => ({ ...error, field: ['csv'] })));
        throw err;
      }
    });

  if (template.error)
    return (
      <Page title="Send to many">
        <Alert>{template.error.message}</Alert>
      </Page>
    );
  if (!template.data) return <Loading />;
  if (!template.data.template)
    return (
      <Page title="Template not found">
        <p>
          This template does not exist or is not yours to see. <Link to="/app/templates">Back to the templates</Link>.
        </p>
      </Page>
    );
  return (
    <Page
      title={`Send “${template.data.template.name}” to many`}
      actions={
        <Link className="button secondary" to="/app/bulk-sends">
          Bulk sends
        </Link>
      }
    >
      <p>
        A request per recipient, made from this template (
        {template.data.template.items.length === 1 ? '1 item' : `${template.data.template.items.length} items`}). Every
        line is checked before anything is sent; then the requests are made in the background.
      </p>
      <Alert>{action.error}</Alert>
      <Form errors={errors} onSubmit={send} label="Recipients">
        <div className="field">
          <label htmlFor="bulk-send-file">CSV file</label>
          <input id="bulk-send-file" type="file" accept=".csv,text/csv" onChange={choose} />
        </div>
        <TextArea
          label="Recipients, one per line"
          name="csv"
          hint={`A header line, then a recipient per line (email or phone on each). Columns: ${COLUMNS}. Up to 1,000 recipients.`}
          value={csv}
          onValue={setCsv}
          rows={10}
          spellCheck={false}
        />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Checking…' : 'Send'}
          </button>
        </div>
      </Form>
    </Page>
  );
}

/** `/app/bulk-sends/{id}`: its counts as the job makes the requests, and the rows refused at creation. */
export function BulkSendScreen({ id }: { id: string }) {
  const [version, setVersion] = useState(0);
  const loaded = useQuery(BulkSendDocument, { id }, version);
  const send = loaded.data?.bulkSend;
  useTitle('Bulk send');
  const readAgain = () => setVersion((v) => v + 1);
  useLive(ProgressedDocument, { id }, readAgain);
  useLive(CompletedDocument, { id }, readAgain);
  useFollow(send?.status, readAgain);
  if (loaded.error && !send)
    return (
      <Page title="Bulk send">
        <Alert>{loaded.error.message}</Alert>
      </Page>
    );
  if (!loaded.data) return <Loading />;
  if (!send)
    return (
      <Page title="Bulk send not found">
        <p>
          This bulk send does not exist or is not yours to see. <Link to="/app/bulk-sends">Back to the bulk sends</Link>
          .
        </p>
      </Page>
    );
  return (
    <Page title={`Bulk send of “${send.template?.name ?? 'a deleted template'}”`}>
      <div aria-live="polite">
        <p data-bulk-status={send.status}>
          <strong>{STATUS_LABELS[send.status] ?? send.status}</strong>: {send.created} of {send.total} requests made
          {send.failed > 0 && `, ${send.failed} refused`}.
        </p>
        <ProgressBar percent={percentDone(send)} label="Requests made" />
        {send.status === 'COMPLETED' && (
          <Notice>
            Finished {formatDateTime(send.completedAt)}. <Link to="/app/requests">See the requests</Link>.
          </Notice>
        )}
      </div>
      {send.failures.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>Rows refused when their request was made</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {send.failures.map((failure) => (
                <tr key={failure.line}>
                  <td>{failure.line}</td>
                  <td>{failure.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** `/app/bulk-sends`: the newest bulk sends and where each stands. */
export function BulkSendsScreen() {
  const [version, setVersion] = useState(0);
  const list = useQuery(BulkSendsDocument, {}, version);
  useTitle('Bulk sends');
  const running = list.data?.bulkSends.nodes.some((send) => send.status === 'QUEUED' || send.status === 'RUNNING');
  useFollow(running ? 'RUNNING' : 'COMPLETED', () => setVersion((v) => v + 1));
  const sends = list.data?.bulkSends.nodes;
  return (
    <Page
      title="Bulk sends"
      actions={
        <Link className="button" to="/app/templates">
          Send a template
        </Link>
      }
    >
      <Alert>{list.error?.message}</Alert>
      {!sends ? (
        <Loading />
      ) : sends.length === 0 ? (
        <p className="empty">
          No bulk sends yet. Choose <em>Send to many</em> on a <Link to="/app/templates">template</Link>.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Bulk sends</caption>
            <thead>
              <tr>
                <th scope="col">Template</th>
                <th scope="col">Progress</th>
                <th scope="col">Sent by</th>
                <th scope="col">Sent</th>
              </tr>
            </thead>
            <tbody>
              {sends.map((send) => (
                <tr key={send.id} data-bulk-send={send.id}>
                  <td data-label="Template">
                    <Link to={`/app/bulk-sends/${send.id}`}>{send.template?.name ?? 'A deleted template'}</Link>
                  </td>
                  <td data-label="Progress">
                    {STATUS_LABELS[send.status] ?? send.status}: {send.created} of {send.total}
                    {send.failed > 0 && `, ${send.failed} refused`}
                  </td>
                  <td data-label="Sent by">{personName(send.owner, send.owner.email)}</td>
                  <td data-label="Sent">{formatDateTime(send.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/**
 * While a bulk send is queued or running, reads it again every FOLLOW_MS: the list has no subscription, and an
 * event sent before a bulk send's subscription started is not replayed.
 */
function useFollow(status: string | undefined, read: () => void): void {
  const latest = useRef(read);
  latest.current = read;
  const going = status === 'QUEUED' || status === 'RUNNING';
  useEffect(() => {
    if (!going) return;
    const timer = window.setInterval(() => latest.current(), FOLLOW_MS);
    return () => window.clearInterval(timer);
  }, [going]);
}
