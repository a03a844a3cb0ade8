import { useState } from 'react';
import { graphql } from '../../../generated/console';
import { personName } from '../../shared/labels';
import { accepted, ApiError, gql, type UserError } from '../api';
import { useAction, useQuery, useTitle } from '../hooks';
import { Link, navigate } from '../router';
import {
  Alert,
  confirmed,
  DeleteButton,
  FieldNote,
  Form,
  formatDate,
  LanguageField,
  Loading,
  NextPageButton,
  Notice,
  Page,
  RemindersField,
  TextArea,
  TextField,
} from '../ui';
import { ItemEditor, KINDS } from './item-editor';
import {
  emptyTemplate,
  newItem,
  templateDraft,
  templateInput,
  type ItemDraft,
  type TemplateDraft,
} from './request-form';

// Templates: the list (use one for a new request, edit, delete), and a template's editor (its title,
// message, reminders, due-date interval, language and items), with the userErrors at their fields.

const TemplatesDocument = graphql(`
  query ConsoleTemplates($after: String) {
    templates(first: 50, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        id
        name
        defaultTitle
        updatedAt
        viewerCanUpdate
        owner {
          email
          firstName
          lastName
        }
        team {
          name
        }
        items {
          id
        }
      }
    }
  }
`);

const TemplateDocument = graphql(`
  query ConsoleTemplate($id: ID!) {
    template(id: $id) {
      id
      name
      defaultTitle
      personalMessage
      reminders
      dueDateInterval
      language
      viewerCanUpdate
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

const FormsDocument = graphql(`
  query ConsoleForms {
    forms(first: 100) {
      nodes {
        id
        name
      }
    }
  }
`);

const CreateDocument = graphql(`
  mutation ConsoleTemplateCreate($input: TemplateCreateInput!) {
    templateCreate(input: $input) {
      template {
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

const UpdateDocument = graphql(`
  mutation ConsoleTemplateUpdate($id: ID!, $input: TemplateUpdateInput!) {
    templateUpdate(id: $id, input: $input) {
      template {
        id
        name
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
  mutation ConsoleTemplateDelete($id: ID!) {
    templateDelete(id: $id) {
      deletedTemplateId
      userErrors {
        field
        message
        code
      }
    }
  }
`);

export function TemplatesScreen() {
  useTitle('Templates');
  const [after, setAfter] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const list = useQuery(TemplatesDocument, { after }, version);
  const action = useAction();
  const [said, setSaid] = useState<string | null>(null);
  const page = list.data?.templates;
  const remove = (id: string, name: string) =>
    confirmed(`Delete the template “${name}”? Requests made from it keep their items.`) &&
    void action.run(async () => {
      accepted((await gql(DeleteDocument, { id })).templateDelete);
      setSaid(`“${name}” deleted`);
      setVersion((v) => v + 1);
    });
  return (
    <Page
      title="Templates"
      actions={
        <>
          <Link className="button secondary" to="/app/bulk-sends">
            Bulk sends
          </Link>
          <Link className="button" to="/app/templates/new">
            New template
          </Link>
        </>
      }
    >
      <Alert>{list.error?.message ?? action.error}</Alert>
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      {!page ? (
        <Loading />
      ) : page.nodes.length === 0 ? (
        <p className="empty">
          No templates yet. <Link to="/app/templates/new">Make one</Link> to start requests from it.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Templates</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Items</th>
                <th scope="col">Owner</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.nodes.map((template) => (
                <tr key={template.id} data-template={template.id}>
                  <td data-label="Name">
                    <div>
                      <Link to={`/app/templates/${template.id}`}>{template.name}</Link>
                      {template.defaultTitle && <div className="muted">Title: {template.defaultTitle}</div>}
                    </div>
                  </td>
                  <td data-label="Items">{template.items.length}</td>
                  <td data-label="Owner">
                    {personName(template.owner, template.owner.email)}
                    {template.team && ` · ${template.team.name}`}
                  </td>
                  <td data-label="Updated">{formatDate(template.updatedAt)}</td>
                  <td data-label="Actions">
                    <div className="actions">
                      <Link className="button secondary" to={`/app/requests/new?template=${template.id}`}>
                        Use<span className="visually-hidden"> {template.name}</span>
                      </Link>
                      <Link className="button secondary" to={`/app/templates/${template.id}/send`}>
                        Send to many<span className="visually-hidden"> ({template.name})</span>
                      </Link>
                      {template.viewerCanUpdate && (
                        <DeleteButton
                          name={template.name}
                          busy={action.busy}
                          onClick={() => remove(template.id, template.name)}
                        />
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NextPageButton pageInfo={page?.pageInfo} onNext={setAfter} />
    </Page>
  );
}

/** `/app/templates/new` and `/app/templates/{id}`: one editor, creating or changing. */
export function TemplateScreen({ id }: { id: string }) {
  if (id === 'new') return <TemplateEditor id={null} initial={emptyTemplate()} canUpdate />;
  return <ExistingTemplate id={id} />;
}

function ExistingTemplate({ id }: { id: string }) {
  const existing = useQuery(TemplateDocument, { id });
  const template = existing.data?.template;
  useTitle(template?.name ?? 'Template');
  if (template)
    return <TemplateEditor id={id} initial={templateDraft(template)} canUpdate={template.viewerCanUpdate} />;
  if (existing.error)
    return (
      <Page title="Template">
        <Alert>{existing.error.message}</Alert>
      </Page>
    );
  if (existing.data)
    return (
      <Page title="Template not found">
        <p>
          This template does not exist or is not yours to see. <Link to="/app/templates">Back to the templates</Link>.
        </p>
      </Page>
    );
  return <Loading />;
}

function TemplateEditor({ id, initial, canUpdate }: { id: string | null; initial: TemplateDraft; canUpdate: boolean }) {
  const creating = id === null;
  const forms = useQuery(FormsDocument, {});
  const [draft, setDraft] = useState<TemplateDraft>(initial);
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const [said, setSaid] = useState<string | null>(null);
  const action = useAction();
  useTitle(creating ? 'New template' : draft.name || 'Template');

  const set = (changes: Partial<TemplateDraft>) => setDraft({ ...draft, ...changes });
  const setItem = (index: number, item: ItemDraft) =>
    set({ items: draft.items.map((existingItem, i) => (i === index ? item : existingItem)) });
  const moveItem = (index: number, by: -1 | 1) => {
    const items = [...draft.items];
    [items[index], items[index + by]] = [items[index + by], items[index]];
    set({ items });
  };
  const submit = () =>
    void action.run(async () => {
      setErrors([]);
      setSaid(null);
      try {
        const payload = creating
          ? (await gql(CreateDocument, { input: templateInput(draft) })).templateCreate
          : (await gql(UpdateDocument, { id, input: templateInput(draft) })).templateUpdate;
        if (payload.userErrors.length) return setErrors(payload.userErrors);
        if (creating && payload.template) navigate(`/app/templates/${payload.template.id}`, { replace: true });
        else setSaid('Saved');
      } catch (err) {
        if (err instanceof ApiError && err.userErrors.length) return setErrors(err.userErrors);
        throw err;
      }
    });
  const readOnly = !canUpdate;
  return (
    <Page
      title={creating ? 'New template' : draft.name || 'Template'}
      actions={
        !creating && (
          <Link className="button secondary" to={`/app/requests/new?template=${id}`}>
            New request from it
          </Link>
        )
      }
    >
      <p className="breadcrumbs">
        <Link to="/app/templates">Templates</Link> › {creating ? 'New' : draft.name}
      </p>
      {readOnly && <p className="muted">Only its owner, its team or an ADMIN may change this template.</p>}
      <Form errors={errors} onSubmit={submit} label="Template">
        <section className="card" aria-labelledby="template-title">
          <h2 id="template-title">Template</h2>
          <div className="grid-2">
            <TextField
              label="Template name"
              name="input.name"
              value={draft.name}
              onValue={(name) => set({ name })}
              maxLength={255}
              required
            />
            <TextField
              label="Title of its requests (optional)"
              name="input.defaultTitle"
              value={draft.defaultTitle}
              onValue={(defaultTitle) => set({ defaultTitle })}
            />
            <RemindersField
              name="input.reminders"
              value={draft.reminders}
              onValue={(reminders) => set({ reminders })}
            />
            <TextField
              label="Due this many days after creation (optional)"
              name="input.dueDateInterval"
              type="number"
              min={1}
              step={1}
              value={draft.dueDateInterval}
              onValue={(dueDateInterval) => set({ dueDateInterval })}
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
        </section>
        <section aria-labelledby="template-items-title">
          <h2 id="template-items-title">Items</h2>
          <FieldNote name="input.items" />
          <ol className="editor-list">
            {draft.items.map((item, index) => (
              <ItemEditor
                key={item.key}
                item={item}
                index={index}
                count={draft.items.length}
                choices={{ forms: forms.data?.forms.nodes ?? [] }}
                onChange={(changed) => setItem(index, changed)}
                onMove={(by) => moveItem(index, by)}
                onRemove={() => set({ items: draft.items.filter((_, i) => i !== index) })}
              />
            ))}
          </ol>
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
          {draft.items.some((item) => item.kind === 'E_SIGNATURE') && (
            <p className="hint">An e-signature item's contract is chosen in each request made from the template.</p>
          )}
        </section>
        <Alert>{action.error}</Alert>
        <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
        <div className="actions form-actions">
          <button type="submit" disabled={action.busy || Boolean(readOnly)}>
            {creating ? 'Create template' : 'Save template'}
          </button>
        </div>
      </Form>
    </Page>
  );
}
