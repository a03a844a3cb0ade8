import {
  createContext,
  useContext,
  useEffect,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import type { Language } from '../../generated/console/graphql';
import { STATE_LABELS } from '../shared/labels';
import { errorsByField, fieldId, fieldKey, type FieldError } from './forms';

// The console's building blocks: pages with a heading that takes the focus, labelled fields that show
// their userErrors, buttons, badges and progress in the dashboard's style.

/** A page: its heading takes the focus when it appears, so a keyboard or a screen reader starts there. */
export function Page({ title, actions, children }: { title: ReactNode; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <section className="page">
      <div className="page-head">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

/** A refusal or failure, read out when it appears. */
export function Alert({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p className="alert" role="alert">
      {children}
    </p>
  );
}

/** A success, read out politely. */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** A form's errors by field key, and its scope: the prefix of its fields' ids when a page has several forms. */
const FormErrors = createContext<{ errors: Map<string, string[]>; scope: string }>({ errors: new Map(), scope: '' });

const scopedId = (scope: string, key: string) => fieldId(scope ? `${scope}.${key}` : key);

/**
 * A form whose fields show the userErrors at their paths; every error is also listed above it, each a
 * link to its field. Submitting runs `onSubmit` (the page does not reload).
 */
export function Form({
  errors,
  onSubmit,
  children,
  className,
  label,
  scope = '',
}: {
  errors: readonly FieldError[];
  onSubmit: (submitter: string | null) => void;
  children: ReactNode;
  className?: string;
  label?: string;
  /** Set when the page holds other forms with fields of the same paths. */
  scope?: string;
}) {
  const summary = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (errors.length) summary.current?.focus();
  }, [errors]);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    onSubmit(submitter?.value || null);
  };
  return (
    <FormErrors.Provider value={{ errors: errorsByField(errors), scope }}>
      <form className={className} onSubmit={submit} noValidate aria-label={label}>
        {errors.length > 0 && (
          <div className="error-summary" role="alert" tabIndex={-1} ref={summary}>
            <p>
              {errors.length === 1 ? 'One thing to fix' : `${errors.length} things to fix`} before this can be saved:
            </p>
            <ul>
              {errors.map((error, index) => (
                <li key={index}>
                  <a
                    href={`#${scopedId(scope, fieldKey(error.field))}`}
                    onClick={(event) => {
                      const target = document.getElementById(scopedId(scope, fieldKey(error.field)));
                      if (!target) return;
                      event.preventDefault();
                      target.focus();
                    }}
                  >
                    {error.message}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
        {children}
      </form>
    </FormErrors.Provider>
  );
}

/** The messages of a field path, and the attributes that tie them to its control. */
function useFieldErrors(name: string) {
  const { errors, scope } = useContext(FormErrors);
  const messages = errors.get(name) ?? [];
  const id = scopedId(scope, name);
  return {
    id,
    messages,
    describedBy: messages.length ? `${id}-error` : undefined,
    invalid: messages.length > 0 || undefined,
  };
}

/** A field's messages, each on a line of its own, so that a list of them reads apart. */
function MessageLines({ messages }: { messages: string[] }) {
  return messages.map((message, i) => <span key={i}>{message}</span>);
}

function FieldMessages({ id, messages }: { id: string; messages: string[] }) {
  if (!messages.length) return null;
  return (
    <span className="field-error" id={`${id}-error`}>
      <MessageLines messages={messages} />
    </span>
  );
}

type FieldBase = { label: ReactNode; name: string; hint?: ReactNode };

type ControlProps = {
  id: string;
  name: string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string | undefined;
};

/** A labelled control with its hint and its errors; `control` draws the input, select or textarea itself. */
function LabelledField({ label, name, hint, control }: FieldBase & { control: (props: ControlProps) => ReactNode }) {
  const { id, messages, describedBy, invalid } = useFieldErrors(name);
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={`field${invalid ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      {control({
        id,
        name,
        'aria-invalid': invalid,
        'aria-describedby': [describedBy, hintId].filter(Boolean).join(' ') || undefined,
      })}
      <FieldMessages id={id} messages={messages} />
    </div>
  );
}

export function TextField({
  label,
  name,
  hint,
  value,
  onValue,
  ...rest
}: FieldBase & { value: string; onValue: (value: string) => void } & Omit<
    InputHTMLAttributes<HTMLInputElement>,
    'value' | 'name'
  >) {
  return (
    <LabelledField
      label={label}
      name={name}
      hint={hint}
      control={(props) => (
        <input {...props} value={value} onChange={(event) => onValue(event.target.value)} {...rest} />
      )}
    />
  );
}

export function TextArea({
  label,
  name,
  hint,
  value,
  onValue,
  ...rest
}: FieldBase & { value: string; onValue: (value: string) => void } & Omit<
    TextareaHTMLAttributes<HTMLTextAreaElement>,
    'value' | 'name'
  >) {
  return (
    <LabelledField
      label={label}
      name={name}
      hint={hint}
      control={(props) => (
        <textarea {...props} value={value} onChange={(event) => onValue(event.target.value)} rows={3} {...rest} />
      )}
    />
  );
}

export function SelectField({
  label,
  name,
  hint,
  value,
  onValue,
  options,
  ...rest
}: FieldBase & {
  value: string;
  onValue: (value: string) => void;
  options: ReadonlyArray<{ value: string; label: string }>;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'name'>) {
  return (
    <LabelledField
      label={label}
      name={name}
      hint={hint}
      control={(props) => (
        <select {...props} value={value} onChange={(event) => onValue(event.target.value)} {...rest}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** The languages a request is written in, as the API names them. */
const LANGUAGES: ReadonlyArray<{ value: Language; label: string }> = [
  { value: 'EN_US', label: 'English' },
  { value: 'ES', label: 'Spanish' },
];

/**
 * A request's language: with `inherit`, an empty choice that takes the template's or the organization's. A value
 * the list does not have (set through the API) stays listed, so saving the form keeps it.
 */
export function LanguageField({
  name,
  value,
  onValue,
  inherit = false,
}: {
  name: string;
  value: Language | '';
  onValue: (value: Language | '') => void;
  inherit?: boolean;
}) {
  const options: Array<{ value: string; label: string }> = inherit ? [{ value: '', label: 'Default' }] : [];
  options.push(...LANGUAGES);
  if (!options.some((option) => option.value === value)) options.push({ value, label: value });
  return (
    <SelectField
      label="Language"
      name={name}
      value={value}
      onValue={(language) => onValue(language as Language | '')}
      options={options}
    />
  );
}

/** Days between reminders: -1 to 365 (0 sends none), as every form that sets them takes it. */
export function RemindersField({
  name,
  value,
  onValue,
  hint,
}: {
  name: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
}) {
  return (
    <TextField
      label="Days between reminders"
      name={name}
      type="number"
      min={-1}
      max={365}
      step={1}
      hint={hint}
      value={value}
      onValue={onValue}
    />
  );
}

/** A list's delete button, named with what it deletes for a screen reader. */
export function DeleteButton({ name, busy, onClick }: { name: string; busy: boolean; onClick: () => void }) {
  return (
    <button type="button" className="danger" disabled={busy} onClick={onClick}>
      Delete<span className="visually-hidden"> {name}</span>
    </button>
  );
}

/** A list's next page, where there is one. */
export function NextPageButton({
  pageInfo,
  onNext,
}: {
  pageInfo: { hasNextPage: boolean; endCursor?: string | null } | undefined;
  onNext: (cursor: string | null) => void;
}) {
  if (!pageInfo?.hasNextPage) return null;
  return (
    <button type="button" className="secondary" onClick={() => onNext(pageInfo.endCursor ?? null)}>
      Next page
    </button>
  );
}

export function CheckboxField({
  label,
  name,
  checked,
  onChecked,
  hint,
}: FieldBase & { checked: boolean; onChecked: (checked: boolean) => void }) {
  const { id, messages, describedBy, invalid } = useFieldErrors(name);
  return (
    <div className={`field checkbox${invalid ? ' invalid' : ''}`}>
      <input
        type="checkbox"
        id={id}
        name={name}
        checked={checked}
        onChange={(event) => onChecked(event.target.checked)}
        aria-invalid={invalid}
        aria-describedby={describedBy}
      />
      <label htmlFor={id}>
        {label}
        {hint && <span className="hint"> {hint}</span>}
      </label>
      <FieldMessages id={id} messages={messages} />
    </div>
  );
}

/** The errors of a field no control stands for (a list as a whole), where that list is shown. */
export function FieldNote({ name }: { name: string }) {
  const { id, messages } = useFieldErrors(name);
  if (!messages.length) return null;
  return (
    <p className="field-error" id={id} tabIndex={-1}>
      <MessageLines messages={messages} />
    </p>
  );
}

export function StateBadge({ state }: { state: string }) {
  return (
    <span className={`badge state-${state}`} data-state={state}>
      {STATE_LABELS[state] ?? state}
    </span>
  );
}

const STATUS_LABELS: Record<string, string> = {
  INCOMPLETE: 'To do',
  COMPLETE: 'Received',
  REJECTED: 'Sent back',
  VERIFIED: 'Verified',
};

export function ItemStatus({ status, isNa }: { status: string; isNa?: boolean }) {
  return (
    <span className={`item status-${status}`} data-status={status}>
      {isNa ? 'Not applicable' : (STATUS_LABELS[status] ?? status)}
    </span>
  );
}

/** The dashboard's progress bar; its width is set through the CSSOM, which the page's policy allows. */
export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  const bounded = Math.max(0, Math.min(100, percent));
  return (
    <div className="request-progress">
      <div
        className="progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(bounded)}
      >
        <div className="progress-fill" style={{ width: `${bounded}%` }} />
      </div>
      <span className="percent">{Math.round(bounded)}%</span>
    </div>
  );
}

/** Copies a text (a recipient's link); says so, or says to copy it by hand where the browser refuses. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone('Copied');
    } catch {
      setDone('Select the link and copy it');
    }
    window.setTimeout(() => setDone(null), 2500);
  };
  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>
      <span className="copied" role="status">
        {done}
      </span>
    </>
  );
}

export const formatDate = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }) : '—';

export const formatDateTime = (iso: string | null | undefined): string =>
  iso
    ? new Date(iso).toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      })
    : '—';

/** Confirms a consequential action with the browser's own dialog (keyboard and screen reader ready). */
export const confirmed = (question: string): boolean => window.confirm(question);
