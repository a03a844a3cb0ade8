import { useState } from 'react';
import { graphql } from '../../../generated/console';
import type {
  AuthMethod,
  BrandingUpdateInput,
  ConsoleSettingsQuery,
  Language,
} from '../../../generated/console/graphql';
import { ApiError, gql, localPath, rest, type UserError } from '../api';
import { text, whole } from '../forms';
import { useAction, useQuery, useTitle } from '../hooks';
import {
  Alert,
  CheckboxField,
  FieldNote,
  Form,
  LanguageField,
  Loading,
  Notice,
  Page,
  RemindersField,
  TextArea,
  TextField,
} from '../ui';

// The organization's settings (ADMIN): defaults of new requests and retention, the branding recipients
// see (colour, sender, support address, logo), and the page shown after a submission.

const SettingsDocument = graphql(`
  query ConsoleSettings {
    organization {
      id
      name
      settings {
        defaultExpirationDays
        defaultReminders
        defaultLanguage
        allowedAuthMethods
        requireCompleteSubmission
        retentionDays
      }
      branding {
        primaryColor
        senderName
        supportEmail
        logoUrl
      }
      confirmationPage {
        enabled
        message
      }
    }
  }
`);

const SettingsUpdateDocument = graphql(`
  mutation ConsoleSettingsUpdate($id: ID!, $input: OrganizationSettingsUpdateInput!) {
    organizationSettingsUpdate(id: $id, input: $input) {
      settings {
        defaultReminders
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const BrandingUpdateDocument = graphql(`
  mutation ConsoleBrandingUpdate($id: ID!, $input: BrandingUpdateInput!) {
    brandingUpdate(id: $id, input: $input) {
      branding {
        primaryColor
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ConfirmationEnableDocument = graphql(`
  mutation ConsoleConfirmationPageEnable($id: ID!, $input: ConfirmationPageEnableInput!) {
    confirmationPageEnable(id: $id, input: $input) {
      confirmationPage {
        enabled
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

const ConfirmationDisableDocument = graphql(`
  mutation ConsoleConfirmationPageDisable($id: ID!) {
    confirmationPageDisable(id: $id) {
      confirmationPage {
        enabled
      }
      userErrors {
        field
        message
        code
      }
    }
  }
`);

type Organization = ConsoleSettingsQuery['organization'];

const AUTH_METHODS: ReadonlyArray<{ value: AuthMethod; label: string }> = [
  { value: 'NONE', label: 'The link alone' },
  { value: 'EMAIL', label: 'A code by email' },
  { value: 'SMS', label: 'A code by SMS' },
  { value: 'SECURITY_QUESTION', label: 'A security question' },
];

/** Runs a payload-answering write; its userErrors (as a payload's or under BAD_USER_INPUT) go to `setErrors`. */
async function saved(
  write: () => Promise<{ userErrors: readonly UserError[] }>,
  setErrors: (errors: readonly UserError[]) => void,
): Promise<boolean> {
  setErrors([]);
  try {
    const payload = await write();
    setErrors(payload.userErrors);
    return payload.userErrors.length === 0;
  } catch (err) {
    if (err instanceof ApiError && err.userErrors.length) {
      setErrors(err.userErrors);
      return false;
    }
    throw err;
  }
}

function Defaults({ organization, onSaved }: { organization: Organization; onSaved: (what: string) => void }) {
  const current = organization.settings;
  const [form, setForm] = useState({
    defaultExpirationDays: current.defaultExpirationDays?.toString() ?? '',
    defaultReminders: String(current.defaultReminders),
    defaultLanguage: current.defaultLanguage,
    allowedAuthMethods: current.allowedAuthMethods,
    requireCompleteSubmission: current.requireCompleteSubmission,
    retentionDays: current.retentionDays?.toString() ?? '',
  });
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const action = useAction();
  const set = (changes: Partial<typeof form>) => setForm({ ...form, ...changes });
  const submit = () =>
    void action.run(async () => {
      const ok = await saved(
        async () =>
          (
            await gql(SettingsUpdateDocument, {
              id: organization.id,
              input: {
                defaultExpirationDays: whole(form.defaultExpirationDays) ?? null,
                defaultReminders: whole(form.defaultReminders),
                defaultLanguage: form.defaultLanguage,
                allowedAuthMethods: form.allowedAuthMethods,
                requireCompleteSubmission: form.requireCompleteSubmission,
                retentionDays: whole(form.retentionDays) ?? null,
              },
            })
          ).organizationSettingsUpdate,
        setErrors,
      );
      if (ok) onSaved('Defaults saved');
    });
  return (
    <Form errors={errors} onSubmit={submit} label="Defaults of new requests">
      <section className="card" aria-labelledby="defaults-title">
        <h2 id="defaults-title">Defaults of new requests</h2>
        <div className="grid-2">
          <RemindersField
            name="input.defaultReminders"
            value={form.defaultReminders}
            onValue={(defaultReminders) => set({ defaultReminders })}
          />
          <TextField
            label="Days until a request expires (empty: never)"
            name="input.defaultExpirationDays"
            type="number"
            min={1}
            step={1}
            value={form.defaultExpirationDays}
            onValue={(defaultExpirationDays) => set({ defaultExpirationDays })}
          />
          <LanguageField
            name="input.defaultLanguage"
            value={form.defaultLanguage}
            onValue={(defaultLanguage) => set({ defaultLanguage: defaultLanguage as Language })}
          />
          <TextField
            label="Days a closed request keeps its files (empty: until deleted)"
            name="input.retentionDays"
            type="number"
            min={1}
            step={1}
            value={form.retentionDays}
            onValue={(retentionDays) => set({ retentionDays })}
          />
        </div>
        <fieldset>
          <legend>Recipients may sign in with</legend>
          <FieldNote name="input.allowedAuthMethods" />
          {AUTH_METHODS.map((method) => (
            <label key={method.value} className="checkbox">
              <input
                type="checkbox"
                checked={form.allowedAuthMethods.includes(method.value)}
                onChange={(event) =>
                  set({
                    allowedAuthMethods: event.target.checked
                      ? [...form.allowedAuthMethods, method.value]
                      : form.allowedAuthMethods.filter((m) => m !== method.value),
                  })
                }
              />{' '}
              {method.label}
            </label>
          ))}
        </fieldset>
        <CheckboxField
          label="Recipients complete every required item before submitting"
          name="input.requireCompleteSubmission"
          checked={form.requireCompleteSubmission}
          onChecked={(requireCompleteSubmission) => set({ requireCompleteSubmission })}
        />
        <Alert>{action.error}</Alert>
        <button type="submit" disabled={action.busy}>
          Save defaults
        </button>
      </section>
    </Form>
  );
}

function Branding({ organization, onSaved }: { organization: Organization; onSaved: (what: string) => void }) {
  const current = organization.branding;
  const [form, setForm] = useState({
    primaryColor: current.primaryColor ?? '',
    senderName: current.senderName ?? '',
    supportEmail: current.supportEmail ?? '',
  });
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const action = useAction();
  const set = (changes: Partial<typeof form>) => setForm({ ...form, ...changes });
  const update = (input: BrandingUpdateInput, what: string) =>
    void action.run(async () => {
      const ok = await saved(
        async () => (await gql(BrandingUpdateDocument, { id: organization.id, input })).brandingUpdate,
        setErrors,
      );
      if (ok) onSaved(what);
    });
  const submit = () =>
    update(
      {
        primaryColor: text(form.primaryColor) ?? null,
        senderName: text(form.senderName) ?? null,
        supportEmail: text(form.supportEmail) ?? null,
      },
      'Branding saved',
    );
  const uploadLogo = (file: File) =>
    void action.run(async () => {
      const body = new FormData();
      body.append('file', file, file.name);
      await rest('POST', `/organizations/${organization.id}/branding/logo`, body);
      onSaved('Logo uploaded');
    });
  return (
    <Form errors={errors} onSubmit={submit} label="Branding">
      <section className="card" aria-labelledby="branding-title">
        <h2 id="branding-title">Branding</h2>
        <p className="muted">What recipients see in the portal and in every mail.</p>
        <div className="grid-2">
          <div className="color-row">
            <TextField
              label="Button colour"
              name="input.primaryColor"
              value={form.primaryColor}
              onValue={(primaryColor) => set({ primaryColor })}
              placeholder="#2f5bd3"
              hint="#RRGGBB; empty: Gather's own"
              maxLength={7}
            />
            <input
              type="color"
              aria-label="Pick the button colour"
              value={/^#[0-9a-fA-F]{6}$/.test(form.primaryColor) ? form.primaryColor : '#2f5bd3'}
              onChange={(event) => set({ primaryColor: event.target.value })}
            />
          </div>
          <TextField
            label="Sender name of mails"
            name="input.senderName"
            value={form.senderName}
            onValue={(senderName) => set({ senderName })}
            hint="Empty: the request owner's name"
            maxLength={100}
          />
          <TextField
            label="Support email"
            name="input.supportEmail"
            type="email"
            value={form.supportEmail}
            onValue={(supportEmail) => set({ supportEmail })}
          />
        </div>
        <div className="field">
          <span className="label-text">Logo</span>
          {current.logoUrl ? (
            <img className="logo" src={localPath(current.logoUrl)} alt={`Logo of ${organization.name}`} />
          ) : (
            <span className="muted">No logo.</span>
          )}
          <label>
            Upload a logo (PNG, JPEG or SVG)
            <input
              type="file"
              accept="image/png,image/jpeg,image/svg+xml"
              disabled={action.busy}
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) uploadLogo(file);
              }}
            />
          </label>
          {current.logoUrl && (
            <button
              type="button"
              className="secondary"
              disabled={action.busy}
              onClick={() => update({ removeLogo: true }, 'Logo removed')}
            >
              Remove the logo
            </button>
          )}
        </div>
        <Alert>{action.error}</Alert>
        <button type="submit" disabled={action.busy}>
          Save branding
        </button>
      </section>
    </Form>
  );
}

function ConfirmationPage({ organization, onSaved }: { organization: Organization; onSaved: (what: string) => void }) {
  const current = organization.confirmationPage;
  const [message, setMessage] = useState(current.message ?? '');
  const [errors, setErrors] = useState<readonly UserError[]>([]);
  const action = useAction();
  const submit = (submitter: string | null) =>
    void action.run(async () => {
      const ok = await saved(
        async () =>
          submitter === 'disable'
            ? (await gql(ConfirmationDisableDocument, { id: organization.id })).confirmationPageDisable
            : (await gql(ConfirmationEnableDocument, { id: organization.id, input: { message } }))
                .confirmationPageEnable,
        setErrors,
      );
      if (ok) onSaved(submitter === 'disable' ? 'Confirmation page turned off' : 'Confirmation page saved');
    });
  return (
    <Form errors={errors} onSubmit={submit} label="Confirmation page">
      <section className="card" aria-labelledby="confirmation-title">
        <h2 id="confirmation-title">After a submission</h2>
        <p className="muted">
          {current.enabled ? 'Recipients read this message after submitting.' : 'No message is shown now.'}
        </p>
        <TextArea
          label="Message to recipients who submitted"
          name="input.message"
          value={message}
          onValue={setMessage}
          maxLength={2000}
        />
        <Alert>{action.error}</Alert>
        <div className="actions">
          <button type="submit" value="enable" disabled={action.busy}>
            {current.enabled ? 'Save message' : 'Show this message'}
          </button>
          {current.enabled && (
            <button type="submit" value="disable" className="secondary" disabled={action.busy}>
              Stop showing it
            </button>
          )}
        </div>
      </section>
    </Form>
  );
}

export function SettingsScreen() {
  useTitle('Settings');
  const [version, setVersion] = useState(0);
  const loaded = useQuery(SettingsDocument, {}, version);
  const [said, setSaid] = useState<string | null>(null);
  const organization = loaded.data?.organization;
  const onSaved = (what: string) => {
    setSaid(what);
    setVersion((v) => v + 1);
  };
  return (
    <Page title="Settings">
      <Alert>{loaded.error?.message}</Alert>
      <div aria-live="polite">{said && <Notice>{said}</Notice>}</div>
      {!organization ? (
        <Loading />
      ) : (
        <div>
          <p className="muted">{organization.name}</p>
          <Defaults organization={organization} onSaved={onSaved} />
          <Branding organization={organization} onSaved={onSaved} />
          <ConfirmationPage organization={organization} onSaved={onSaved} />
        </div>
      )}
    </Page>
  );
}
