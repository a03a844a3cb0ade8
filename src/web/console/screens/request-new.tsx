import { useEffect, useState } from 'react';
import { graphql } from '../../../generated/console';
import type { AuthMethod } from '../../../generated/console/graphql';
import { accepted, ApiError, gql, type UserError } from '../api';
import { localDateTime } from '../forms';
import { useAction, useQuery, useTitle } from '../hooks';
import { navigate, useLocation } from '../router';
import { Alert, FieldNote, Form, LanguageField, Page, RemindersField, SelectField, TextArea, TextField } from '../ui';
import { ItemEditor, KINDS } from './item-editor';
import {
  createInput,
  emptyDraft,
  fromTemplate,
  newItem,
  newRecipient,
  type ItemDraft,
  type RecipientDraft,
  type RequestDraft,
} from './request-form';

// A new request, from scratch or from a template: items (upload, question, e-signature with a contract
// chosen or uploaded here, form), recipients with their sign-in method, due date, expiry, reminders,
// a message; kept as a draft or sent. What `requestCreate` refuses is shown at its field.

const ChoicesDocument = graphql(`
  query ConsoleNewRequestChoices {
    templates(first: 100) {
      nodes {
        id
        name
      }
    }
    contracts(first: 100) {
      nodes {
        id
        name
      }
    }
    forms(first: 100) {
      nodes {
        id
        name
        fields {
          name
        }
      }
    }
  }
`);

const TemplateDocument = graphql(`
  query ConsoleTemplateStart($id: ID!) {
    template(id: $id) {
      id
      name
      defaultTitle
      personalMessage
      reminders
      dueDateInterval
      language
      items {
        kind
        name
        description
        required
        form {
          id
          allowFileUpload
        }
      }
    }
  }
`);

const CreateDocument = graphql(`
  mutation ConsoleRequestCreate($input: RequestCreateInput!) {
    requestCreate(input: $input) {
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

const AUTH_METHODS: ReadonlyArray<{ value: AuthMethod; label: string }> = [
  { value: 'UNSET', label: "The organization's default" },
  { value: 'NONE', label: 'The link alone' },
  { value: 'EMAIL', label: 'A code by email' },
  { value: 'SMS', label: 'A code by SMS' },
  { value: 'SECURITY_QUESTION', label: 'A security question' },
];

function RecipientEditor({
  recipient,
  index,
  count,
  onChange,
  onRemove,
}: {
  recipient: RecipientDraft;
  index: number;
  count: number;
  onChange: (recipient: RecipientDraft) => void;
  onRemove: () => void;
}) {
  const path = `input.recipients.${index}`;
  const set = (changes: Partial<RecipientDraft>) => onChange({ ...recipient, ...changes });
  return (
    <li className="editor-entry">
      <div className="item-head">
        <h3>Recipient {index + 1}</h3>
        {count > 1 && (
          <button type="button" className="danger" onClick={onRemove}>
            Remove<span className="visually-hidden"> recipient {index + 1}</span>
          </button>
        )}
      </div>
      <FieldNote name={path} />
      <div className="grid-2">
        <TextField
          label="First name"
          name={`${path}.firstName`}
          value={recipient.firstName}
          onValue={(firstName) => set({ firstName })}
          autoComplete="off"
        />
        <TextField
          label="Last name"
          name={`${path}.lastName`}
          value={recipient.lastName}
          onValue={(lastName) => set({ lastName })}
          autoComplete="off"
        />
        <TextField
          label="Email"
          name={`${path}.email`}
          type="email"
          value={recipient.email}
          onValue={(email) => set({ email })}
          autoComplete="off"
        />
        <TextField
          label="Mobile phone"
          name={`${path}.phone`}
          type="tel"
          hint="International form: +15551234567"
          value={recipient.phone}
          onValue={(phone) => set({ phone })}
          autoComplete="off"
        />
        <SelectField
          label="Signs in with"
          name={`${path}.authMethod`}
          value={recipient.authMethod}
          onValue={(authMethod) => set({ authMethod: authMethod as AuthMethod })}
          options={AUTH_METHODS}
        />
      </div>
      {recipient.authMethod === 'SECURITY_QUESTION' && (
        <div className="grid-2">
          <TextField
            label="Security question"
            name={`${path}.questionText`}
            value={recipient.questionText}
            onValue={(questionText) => set({ questionText })}
          />
          <TextField
            label="Its answer"
            name={`${path}.questionAnswer`}
            value={recipient.questionAnswer}
            onValue={(questionAnswer) => set({ questionAnswer })}
            autoComplete="off"
          />
        </div>
      )}
    </li>
  );
}

export function NewRequestScreen() {
  useTitle('New request');
  const { query } = useLocation();
  const [choicesVersion, setChoicesVersion] = useState(0);
  const choices = useQuery(ChoicesDocument, {}, choicesVersion);
  const [draft, setDraft] = useState<RequestDraft>(emptyDraft);
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const action = useAction();
  const templateId = query.get('template') ?? '';

  const startFrom = (id: string) =>
    void action.run(async () => {
      if (!id) {
        setDraft((current) => ({ ...emptyDraft(), recipients: current.recipients }));
        return;
      }
      const template = (await gql(TemplateDocument, { id })).template;
      if (!template) throw new ApiError('That template no longer exists.');
      setDraft((current) => fromTemplate(current, template, new Date(), localDateTime));
    });

  // /app/requests/new?template=<id> starts from that template (the templates screen links it).
  useEffect(() => {
    if (templateId) startFrom(templateId);
  }, [templateId]);

  const set = (changes: Partial<RequestDraft>) => setDraft((current) => ({ ...current, ...changes }));
  const setItem = (index: number, item: ItemDraft) =>
    set({ items: draft.items.map((existing, i) => (i === index ? item : existing)) });
  const moveItem = (index: number, by: -1 | 1) => {
    const items = [...draft.items];
    [items[index], items[index + by]] = [items[index + by], items[index]];
    set({ items });
  };
  const setRecipient = (index: number, recipient: RecipientDraft) =>
    set({ recipients: draft.recipients.map((existing, i) => (i === index ? recipient : existing)) });

  const submit = (submitter: string | null) =>
    void action.run(async () => {
      setErrors([]);
      try {
        const created = (await gql(CreateDocument, { input: createInput(draft, submitter !== 'draft') })).requestCreate;
        if (created.userErrors.length) return setErrors(created.userErrors);
        accepted(created);
        if (created.request) navigate(`/app/requests/${created.request.id}`);
      } catch (err) {
        // A refusal with userErrors (a value GraphQL coerced but the service refused as a whole) is placed too.
        if (err instanceof ApiError && err.userErrors.length) return setErrors(err.userErrors);
        throw err;
      }
    });

  const data = choices.data;
  const lists = { contracts: data?.contracts.nodes ?? [], forms: data?.forms.nodes ?? [] };
  return (
    <Page title="New request">
      <Form errors={errors} onSubmit={submit} className="request-form" label="New request">
        <section className="card" aria-labelledby="start-title">
          <h2 id="start-title">Start</h2>
          <div className="grid-2">
            <SelectField
              label="Start from"
              name="input.templateId"
              value={draft.templateId}
              onValue={startFrom}
              options={[
                { value: '', label: 'Nothing (a blank request)' },
                ...(data?.templates.nodes ?? []).map((t) => ({ value: t.id, label: `Template: ${t.name}` })),
              ]}
            />
            <TextField
              label="Request name"
              name="input.name"
              value={draft.name}
              onValue={(name) => set({ name })}
              maxLength={255}
              required
              hint="The title recipients see"
            />
          </div>
        </section>

        <section aria-labelledby="items-title">
          <h2 id="items-title">Items</h2>
          <FieldNote name="input.items" />
          <ol className="editor-list">
            {draft.items.map((item, index) => (
              <ItemEditor
                key={item.key}
                item={item}
                index={index}
                count={draft.items.length}
                choices={lists}
                onChange={(changed) => setItem(index, changed)}
                onMove={(by) => moveItem(index, by)}
                onRemove={() => set({ items: draft.items.filter((_, i) => i !== index) })}
                onContractUploaded={() => setChoicesVersion((v) => v + 1)}
              />
            ))}
          </ol>
          {draft.items.length === 0 && <p className="muted">No items yet: add what the recipients should provide.</p>}
          <div className="actions" role="group" aria-label="Add an item">
            {KINDS.map(({ kind, label }) => (
              <button
                key={kind}
                type="button"
                className="secondary"
                onClick={() => set({ items: [...draft.items, newItem(kind)] })}
              >
                Add {label.toLowerCase()}
              </button>
            ))}
          </div>
        </section>

        <section aria-labelledby="recipients-title">
          <h2 id="recipients-title">Recipients</h2>
          <FieldNote name="input.recipients" />
          <ol className="editor-list">
            {draft.recipients.map((recipient, index) => (
              <RecipientEditor
                key={recipient.key}
                recipient={recipient}
                index={index}
                count={draft.recipients.length}
                onChange={(changed) => setRecipient(index, changed)}
                onRemove={() => set({ recipients: draft.recipients.filter((_, i) => i !== index) })}
              />
            ))}
          </ol>
          <button
            type="button"
            className="secondary"
            onClick={() => set({ recipients: [...draft.recipients, newRecipient()] })}
          >
            Add a recipient
          </button>
        </section>

        <section className="card" aria-labelledby="schedule-title">
          <h2 id="schedule-title">Dates, reminders and message</h2>
          <div className="grid-2">
            <TextField
              label="Due"
              name="input.dueDate"
              type="datetime-local"
              value={draft.dueDate}
              onValue={(dueDate) => set({ dueDate })}
            />
            <TextField
              label="Expires (the request and its documents are deleted)"
              name="input.expirationDate"
              type="datetime-local"
              value={draft.expirationDate}
              onValue={(expirationDate) => set({ expirationDate })}
            />
            <RemindersField
              name="input.reminders"
              hint="0 sends none; empty: the template's or the organization's default"
              value={draft.reminders}
              onValue={(reminders) => set({ reminders })}
            />
            <LanguageField
              name="input.language"
              value={draft.language}
              onValue={(language) => set({ language })}
              inherit
            />
          </div>
          <TextArea
            label="Message to the recipients (optional)"
            name="input.personalMessage"
            value={draft.personalMessage}
            onValue={(personalMessage) => set({ personalMessage })}
            maxLength={5000}
          />
          <TextArea
            label="Notes for you (never shown to recipients)"
            name="input.notes"
            value={draft.notes}
            onValue={(notes) => set({ notes })}
          />
        </section>

        <Alert>{action.error}</Alert>
        <div className="actions form-actions">
          <button type="submit" value="send" disabled={action.busy}>
            Send to the recipients
          </button>
          <button type="submit" value="draft" className="secondary" disabled={action.busy}>
            Save as draft
          </button>
        </div>
      </Form>
    </Page>
  );
}
