import { formatDate, formatMessage, formatSize, type MessageValues } from '../../i18n/format';
import type { PortalTextKey, PortalTexts } from '../../i18n/catalog';
import { isDone } from '../items/item.progress';
import type { RestLayout } from '../../web/shared/layout';

// What the portal shows, as functions from the recipient API's answers to HTML. The server renders
// the first paint with them and the page script (src/web/portal/portal.client.ts, bundled) re-renders parts with the
// same functions after each change, so the two never drift apart. Everything put into the HTML goes
// through `html`, which escapes it.

/** `GET /r/{token}/api` (API-DECISIONS, "The recipient side"). */
export type SignInInfo = {
  request: {
    name: string;
    organization_name: string;
    owner_name: string;
    due_date: string | null;
    language: string | null;
  };
  recipient: { first_name: string | null };
  sign_in: { steps: SignInStep[]; question_text: string | null; code_destination: string | null };
  branding: PortalBranding;
};
export type SignInStep = 'question' | 'code';

export type PortalFile = { id: string; file_name: string; content_type: string; size: number; download_url: string };

/** A file the recipient sent; `mine` when this recipient did (only those may be removed). */
export type PortalDocument = PortalFile & { mine: boolean; created_at: string };

/** A contract's field this recipient fills, with where the owner placed it on the PDF. */
export type ContractField = { id: string; type: string; placeholder: string | null; layout: RestLayout | null };

export type PortalItem = {
  id: string;
  name: string;
  description: string | null;
  type: 'UPLOAD' | 'QUESTION' | 'E_SIGNATURE';
  required: boolean;
  status: 'INCOMPLETE' | 'COMPLETE' | 'REJECTED' | 'VERIFIED';
  is_na: boolean;
  answer: string | null;
  /** The owner's files for this item. */
  attachments: PortalFile[];
  /** What was sent for it. */
  documents: PortalDocument[];
  /** E_SIGNATURE items: the contract's fields this recipient fills. */
  signature_fields: ContractField[];
  /** UPLOAD items with a form: its fields, and the answers saved (by field name). */
  form?: PortalForm | null;
  form_answers?: Record<string, string> | null;
  /** UPLOAD items: what the item accepts. */
  upload_rules?: PortalUploadRules | null;
};

export type PortalUploadRules = {
  accept: string[];
  max_file_bytes: number | null;
  min_files: number | null;
  max_files: number | null;
  file_name_pattern: string | null;
};

export type PortalForm = {
  name: string;
  allow_file_upload: boolean;
  fields: { name: string; default_value: string | null; read_only: boolean }[];
};

/** `GET /r/{token}/api/request`. */
export type PortalRequest = {
  name: string;
  organization_name: string;
  owner_name: string;
  personal_message: string | null;
  due_date: string | null;
  language: string | null;
  state: string;
  /** Whether the recipient may change anything now: false once submitted (until a rejection), closed or expired. */
  can_change: boolean;
  disable_submission_comments: boolean;
  attachments: PortalFile[];
  items: PortalItem[];
  /** Newest first. */
  submissions: { created_at: string; outcome: string; comment: string | null }[];
  /** The owner's last request for changes, while the request waits for them. */
  rejection?: { message: string; item_ids: string[]; rejected_at: string } | null;
  branding: PortalBranding;
  /** The organization's confirmation page, once submitted. */
  confirmation: { message: string } | null;
};

export type PortalBranding = {
  primary_color: string | null;
  sender_name: string | null;
  support_email: string | null;
  logo_url: string | null;
};

export type ViewContext = {
  token: string;
  texts: PortalTexts;
  /** The language the texts are in (`fr`, `en-US`): dates and numbers follow it. */
  language: string;
  maxUploadBytes: number;
};

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function piece(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template whose values are escaped, but for SafeHtml (other templates) and lists of them. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += piece(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

export function text(ctx: Pick<ViewContext, 'texts' | 'language'>, key: PortalTextKey, values?: MessageValues): string {
  return formatMessage(ctx.language, ctx.texts[key], values);
}

/** An item of the view, done as everywhere else (items/item.progress). */
const done = (item: PortalItem): boolean => isDone({ status: item.status, isNa: item.is_na });

const apiPath = (ctx: ViewContext, path: string) => `/r/${encodeURIComponent(ctx.token)}/api${path}`;

/** The page's language switch: a plain form (it works without the script) to `action?lang=…`. */
export type LanguageSwitch = { action: string; languages: { language: string; name: string }[] };

function renderLanguageSwitch(ctx: ViewContext, options: LanguageSwitch): SafeHtml {
  return html`<form class="language" method="get" action="${options.action}">
    <label for="language">${text(ctx, 'languageLabel')}</label>
    <select id="language" name="lang">${options.languages.map(
      ({ language, name }) =>
        html`<option value="${language}" lang="${language}" ${language === ctx.language ? html`selected` : ''}>${name}</option>`,
    )}</select>
    <button type="submit" class="secondary">${text(ctx, 'languageChange')}</button>
  </form>`;
}

export function renderHeader(
  ctx: ViewContext,
  request: {
    name: string;
    organization_name: string;
    owner_name: string;
    due_date: string | null;
    branding?: PortalBranding;
  },
  languageSwitch?: LanguageSwitch,
): SafeHtml {
  // The logo is Gather's own route: by its path, so the page's `img-src 'self'` takes it whatever PUBLIC_URL says.
  const logo = request.branding?.logo_url ? new URL(request.branding.logo_url).pathname : null;
  return html`<header class="top">
  ${languageSwitch ? renderLanguageSwitch(ctx, languageSwitch) : ''}
  ${logo ? html`<img class="logo" src="${logo}" alt="${text(ctx, 'logoAlt', { organization: request.organization_name })}">` : ''}
  <p class="org">${text(ctx, 'from', { owner: request.owner_name, organization: request.organization_name })}</p>
  <h1><bdi>${request.name}</bdi></h1>
  ${request.due_date ? html`<p class="due">${text(ctx, 'due', { date: formatDate(request.due_date, ctx.language) })}</p>` : ''}
</header>`;
}

export function renderSignIn(ctx: ViewContext, info: SignInInfo, options: { focus?: 'code' | null } = {}): SafeHtml {
  const { steps, question_text: question, code_destination: destination } = info.sign_in;
  const name = info.recipient.first_name;
  return html`<section class="card signin" aria-labelledby="signin-title">
  <p>${name ? text(ctx, 'greeting', { name }) : text(ctx, 'greetingNoName')}</p>
  <h2 id="signin-title">${text(ctx, 'signInTitle')}</h2>
  <form id="signin-form" novalidate>
    ${
      steps.includes('question')
        ? html`<div class="field">
      <label for="signin-answer">${text(ctx, 'questionLabel', { question: question ?? '' })}</label>
      <input id="signin-answer" name="answer" type="text" autocomplete="off" required ${options.focus !== 'code' ? html`autofocus` : ''}>
    </div>`
        : ''
    }
    ${
      steps.includes('code')
        ? html`<div class="field" id="code-step">
      <p id="code-intro">${destination ? text(ctx, 'codeIntro', { destination }) : text(ctx, 'codeIntroNoDestination')}</p>
      <button type="button" class="secondary" data-action="send-code">${text(ctx, 'sendCode')}</button>
      <label for="signin-code">${text(ctx, 'codeLabel')}</label>
      <input id="signin-code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required aria-describedby="code-hint" ${options.focus === 'code' ? html`autofocus` : ''}>
      <p class="hint" id="code-hint">${text(ctx, 'codeHint', { owner: info.request.owner_name })}</p>
    </div>`
        : ''
    }
    <p class="error" id="signin-error" role="alert"></p>
    <button type="submit" class="primary">${text(ctx, 'signIn')}</button>
  </form>
</section>`;
}

function renderFileLink(ctx: ViewContext, file: PortalFile): SafeHtml {
  return html`<a href="${file.download_url}" download aria-label="${text(ctx, 'download', { name: file.file_name })}">${file.file_name}</a> <span class="size">${formatSize(file.size, ctx.language)}</span>`;
}

function statusKey(item: PortalItem): PortalTextKey {
  if (item.is_na) return 'statusNotApplicable';
  return (
    {
      INCOMPLETE: 'statusIncomplete',
      COMPLETE: 'statusComplete',
      REJECTED: 'statusRejected',
      VERIFIED: 'statusVerified',
    } as const
  )[item.status];
}

/** The largest file an item takes: its rule, else the service's limit. */
export const largestFile = (ctx: Pick<ViewContext, 'maxUploadBytes'>, item: PortalItem): number =>
  Math.min(item.upload_rules?.max_file_bytes ?? Infinity, ctx.maxUploadBytes);

/** An accepted type as a recipient reads it: `.pdf` and `application/pdf` as PDF, `image/*` as it is. */
const typeLabel = (entry: string) =>
  entry.startsWith('.')
    ? entry.slice(1).toUpperCase()
    : entry.endsWith('/*')
      ? entry
      : entry.split('/')[1].toUpperCase();

/** The item's types and file counts, said before the upload (its largest file is in `chooseFilesHint`). */
function rulesHint(ctx: ViewContext, item: PortalItem): string {
  const rules = item.upload_rules;
  if (!rules) return '';
  const parts: string[] = [];
  if (rules.accept.length) parts.push(text(ctx, 'acceptTypes', { types: acceptedList(ctx, rules.accept) }));
  const { min_files: min, max_files: max } = rules;
  // At most one file is said by `chooseFileHint` instead.
  const many = max !== 1;
  if (many && min != null && max != null) parts.push(text(ctx, 'acceptFilesBetween', { min, max }));
  else if (many && min != null) parts.push(text(ctx, 'acceptFilesAtLeast', { min }));
  else if (many && max != null) parts.push(text(ctx, 'acceptFilesAtMost', { max }));
  return parts.map((part) => ` ${part}`).join('');
}

const acceptedList = (ctx: Pick<ViewContext, 'language'>, accept: string[]) =>
  new Intl.ListFormat(ctx.language, { type: 'disjunction' }).format([...new Set(accept.map(typeLabel))]);

/**
 * Why the browser refuses `file` for `item` before sending it (the service checks again, on the bytes):
 * its type by name or browser's type, its size, the item's most files; null when it may go.
 */
export function refusalOf(
  ctx: ViewContext,
  item: PortalItem,
  file: { name: string; type: string; size: number },
  started: number,
): string | null {
  const largest = largestFile(ctx, item);
  if (file.size > largest)
    return text(ctx, 'fileTooLarge', { name: file.name, size: formatSize(largest, ctx.language) });
  const rules = item.upload_rules;
  if (!rules) return null;
  const extension = file.name.includes('.') ? `.${file.name.split('.').pop()!.toLowerCase()}` : '';
  const type = file.type.toLowerCase();
  const fits = (entry: string) =>
    entry.startsWith('.')
      ? entry === extension
      : entry.endsWith('/*')
        ? type.startsWith(entry.slice(0, -1))
        : entry === type;
  if (rules.accept.length && !rules.accept.some(fits))
    return text(ctx, 'fileTypeRefused', { name: file.name, types: acceptedList(ctx, rules.accept) });
  if (rules.max_files != null && item.documents.length + started >= rules.max_files)
    return text(ctx, 'tooManyFiles', { name: file.name, max: rules.max_files });
  return null;
}

function renderUpload(ctx: ViewContext, item: PortalItem, editable: boolean): SafeHtml {
  const canRemove = editable && item.status !== 'VERIFIED';
  const single = item.upload_rules?.max_files === 1;
  return html`${
    item.documents.length
      ? html`<h4>${text(ctx, 'yourFiles')}</h4><ul class="files">${item.documents.map(
          (doc) =>
            html`<li><span class="name">${renderFileLink(ctx, doc)}</span>${
              canRemove && doc.mine
                ? html`<button type="button" class="link" data-action="remove-document" data-item="${item.id}" data-document="${doc.id}" data-name="${doc.file_name}" aria-label="${text(ctx, 'removeFile', { name: doc.file_name })}">×</button>`
                : ''
            }</li>`,
        )}</ul>`
      : ''
  }
  ${
    editable && !item.is_na
      ? html`<div class="field">
    <label class="button secondary" for="file-${item.id}">${text(ctx, 'chooseFiles')}</label>
    <input class="visually-hidden" type="file" id="file-${item.id}"${single ? '' : ' multiple'} data-action="upload" data-item="${item.id}" aria-describedby="file-hint-${item.id}">
    <p class="hint" id="file-hint-${item.id}">${text(ctx, single ? 'chooseFileHint' : 'chooseFilesHint', { size: formatSize(largestFile(ctx, item), ctx.language) })}${rulesHint(ctx, item)}</p>
  </div>`
      : ''
  }
  <ul class="uploads" id="uploads-${item.id}" aria-live="polite"></ul>`;
}

function renderQuestion(ctx: ViewContext, item: PortalItem, editable: boolean): SafeHtml {
  if (!editable || item.is_na) return html`<p class="answer">${item.answer || text(ctx, 'noAnswer')}</p>`;
  return html`<form class="answer-form" data-action="answer" data-item="${item.id}">
    <label for="answer-${item.id}">${text(ctx, 'answerFor', { question: item.name })}</label>
    <textarea id="answer-${item.id}" name="answer" rows="3" maxlength="10000">${item.answer ?? ''}</textarea>
    <button type="submit" class="secondary" id="save-${item.id}">${text(ctx, 'saveAnswer')}</button>
  </form>`;
}

/**
 * A form to fill in: every field shown with what it holds (the answer saved, else its default); a
 * read-only field is shown and cannot change. Once the recipient may change nothing, the values alone.
 */
function renderForm(ctx: ViewContext, item: PortalItem, form: PortalForm, editable: boolean): SafeHtml {
  const value = (field: PortalForm['fields'][number]) => item.form_answers?.[field.name] ?? field.default_value ?? '';
  if (!editable || item.is_na) {
    return html`<dl class="form-values">${form.fields.map((field) => html`<dt>${field.name}</dt><dd>${value(field) || '—'}</dd>`)}</dl>`;
  }
  return html`<form class="form-fill" data-action="form" data-item="${item.id}">
    <fieldset>
      <legend>${form.name}</legend>
      ${form.fields.map((field, i) => {
        const id = `form-${item.id}-${i}`;
        return html`<div class="field">
        <label for="${id}">${field.name}</label>
        <input id="${id}" type="text" data-field="${field.name}" value="${value(field)}" maxlength="5000" ${field.read_only ? html`readonly aria-describedby="${id}-hint"` : ''}>
        ${field.read_only ? html`<p class="hint" id="${id}-hint">${text(ctx, 'readOnlyField')}</p>` : ''}
      </div>`;
      })}
    </fieldset>
    <button type="submit" class="secondary" id="save-form-${item.id}">${text(ctx, 'saveForm')}</button>
  </form>`;
}

function renderField(item: PortalItem, field: ContractField): SafeHtml {
  const id = `field-${item.id}-${field.id}`;
  const label = field.placeholder || field.id;
  const type = field.type.toLowerCase();
  if (type === 'checkbox' || type === 'radio') {
    return html`<div class="check" data-box="${field.id}"><input type="${type}" id="${id}" name="${id}" data-field="${field.id}"><label for="${id}">${label}</label></div>`;
  }
  return html`<div class="field" data-box="${field.id}"><label for="${id}">${label}</label><input id="${id}" data-field="${field.id}" type="${type === 'date' ? 'date' : 'text'}"></div>`;
}

function renderSignature(ctx: ViewContext, item: PortalItem, editable: boolean): SafeHtml {
  const contract = html`<p><a href="${apiPath(ctx, `/items/${item.id}/contract`)}" target="_blank" rel="noopener">${text(ctx, 'contractLink')}</a></p>`;
  if (!editable || item.is_na || item.status === 'COMPLETE' || item.status === 'VERIFIED') {
    const signed = item.status === 'COMPLETE' || item.status === 'VERIFIED';
    // The signed copy's pages in place of the contract's: each box shows the name or drawing stamped in it.
    // This recipient's own copy first (another signer's may be there too).
    const pdfs = signed ? item.documents.filter((doc) => doc.content_type === 'application/pdf') : [];
    const copy = pdfs.findLast((doc) => doc.mine) ?? pdfs.at(-1);
    return html`${contract}${signed ? html`<p class="signed">✓ ${text(ctx, 'signed')}</p>` : ''}${
      copy
        ? html`<div class="sign-pages" data-item="${item.id}" data-src="${copy.download_url}" data-fields="[]" hidden></div>`
        : ''
    }${renderUpload(ctx, item, false)}`;
  }
  // Signature and initials fields take the signature itself; the others are filled in here.
  const fields = item.signature_fields.filter((f) => !['signature', 'initials'].includes(f.type.toLowerCase()));
  const group = `sig-${item.id}`;
  return html`${contract}
  <form class="sign-form" data-action="sign" data-item="${item.id}">
    <div class="sign-pages" data-item="${item.id}" data-fields="${JSON.stringify(item.signature_fields)}" hidden></div>
    ${fields.length ? html`<fieldset class="sign-fields"><legend>${text(ctx, 'contractFields')}</legend>${fields.map((f) => renderField(item, f))}</fieldset>` : ''}
    <fieldset class="sign-step" id="${group}-step" tabindex="-1">
      <legend>${text(ctx, 'signatureLabel')}</legend>
      <div class="choice">
        <input type="radio" id="${group}-typed" name="${group}" value="TYPED" checked data-action="signature-kind"><label for="${group}-typed">${text(ctx, 'signatureTyped')}</label>
        <input type="radio" id="${group}-drawn" name="${group}" value="DRAWN" data-action="signature-kind"><label for="${group}-drawn">${text(ctx, 'signatureDrawn')}</label>
      </div>
      <div class="field sig-typed">
        <label for="${group}-text">${text(ctx, 'typedSignatureLabel')}</label>
        <input id="${group}-text" type="text" autocomplete="name" class="typed-signature">
      </div>
      <div class="field sig-drawn" hidden>
        <p class="hint" id="${group}-hint">${text(ctx, 'drawHint')}</p>
        <canvas class="pad" width="600" height="200" aria-describedby="${group}-hint" data-item="${item.id}"></canvas>
        <button type="button" class="link" id="clear-${item.id}" data-action="clear-pad" data-item="${item.id}">${text(ctx, 'clearDrawing')}</button>
      </div>
    </fieldset>
    <button type="submit" class="primary" id="sign-${item.id}">${text(ctx, 'signDocument')}</button>
  </form>`;
}

export function renderItem(ctx: ViewContext, item: PortalItem, editable: boolean): SafeHtml {
  const itemDone = done(item);
  const body = item.form
    ? // Files go with a form only where the owner allows them; those already sent stay listed.
      html`${renderForm(ctx, item, item.form, editable)}${item.form.allow_file_upload || item.documents.length ? renderUpload(ctx, item, editable && item.form.allow_file_upload) : ''}`
    : item.type === 'UPLOAD'
      ? renderUpload(ctx, item, editable)
      : item.type === 'QUESTION'
        ? renderQuestion(ctx, item, editable)
        : renderSignature(ctx, item, editable);
  return html`<li class="item ${itemDone ? 'done' : ''} ${item.status === 'REJECTED' ? 'rejected' : ''}" id="item-${item.id}" data-status="${item.status}">
  <div class="item-head">
    <span class="mark" aria-hidden="true">${itemDone ? '✓' : item.status === 'REJECTED' ? '!' : ''}</span>
    <h3><bdi>${item.name}</bdi></h3>
    <span class="tag ${item.required ? 'req' : ''}">${text(ctx, item.required ? 'required' : 'optional')}</span>
    <span class="state">${text(ctx, statusKey(item))}</span>
  </div>
  <div class="item-body">
    ${item.description ? html`<p class="desc">${item.description}</p>` : ''}
    ${item.attachments.length ? html`<ul class="files owner">${item.attachments.map((f) => html`<li>${renderFileLink(ctx, f)}</li>`)}</ul>` : ''}
    ${body}
    ${
      editable && !item.required && item.status !== 'VERIFIED'
        ? html`<div class="check na"><input type="checkbox" id="na-${item.id}" data-action="not-applicable" data-item="${item.id}" ${item.is_na ? html`checked` : ''}><label for="na-${item.id}">${text(ctx, 'notApplicable')}</label></div>`
        : ''
    }
    <p class="error" id="error-${item.id}" role="alert"></p>
  </div>
</li>`;
}

export function renderProgress(ctx: ViewContext, items: PortalItem[]): SafeHtml {
  const finished = items.filter(done).length;
  const label = text(ctx, 'progress', { done: finished, total: items.length });
  return html`<div class="progress" id="progress"><progress max="${items.length}" value="${finished}" aria-label="${label}"></progress><span>${label}</span></div>`;
}

function renderSubmitted(ctx: ViewContext, request: PortalRequest): SafeHtml {
  const submission = request.submissions[0];
  return html`<section class="card sent" aria-labelledby="sent-title">
  <h2 id="sent-title">✓ ${text(ctx, 'submittedTitle')}</h2>
  ${submission ? html`<p>${text(ctx, 'submittedOn', { date: formatDate(submission.created_at, ctx.language, { withTime: true }), owner: request.owner_name })}</p>` : ''}
  <h3>${text(ctx, 'whatYouSent')}</h3>
  <ul class="summary">${request.items.map(
    (item) =>
      html`<li><strong>${item.name}</strong>: ${
        item.is_na
          ? text(ctx, 'statusNotApplicable')
          : item.type === 'QUESTION'
            ? item.answer || text(ctx, 'noAnswer')
            : [
                ...(item.form_answers
                  ? [
                      Object.entries(item.form_answers)
                        .map(([field, value]) => `${field}: ${value}`)
                        .join('; '),
                    ]
                  : []),
                ...item.documents.map((d) => d.file_name),
              ].join(', ') || text(ctx, 'nothingSent')
      }</li>`,
  )}</ul>
  ${submission?.comment ? html`<h3>${text(ctx, 'yourComment')}</h3><p class="comment">${submission.comment}</p>` : ''}
</section>`;
}

function renderRejection(ctx: ViewContext, request: PortalRequest): SafeHtml {
  const message = request.rejection?.message;
  const names = request.items
    .filter((i) => request.rejection?.item_ids.includes(i.id) ?? i.status === 'REJECTED')
    .map((i) => i.name);
  return html`<section class="card notice" role="region" aria-labelledby="rejected-title">
  <h2 id="rejected-title">${text(ctx, 'rejectedTitle', { owner: request.owner_name })}</h2>
  ${message ? html`<blockquote>${message}</blockquote>` : ''}
  ${names.length ? html`<p>${text(ctx, 'itemsToRedo', { items: names.join(', ') })}</p>` : ''}
</section>`;
}

/** The signed-in page below the header: the owner's message, the checklist and the submission. */
export function renderRequest(ctx: ViewContext, request: PortalRequest): SafeHtml {
  const editable = request.can_change;
  return html`${request.state === 'REJECTED' ? renderRejection(ctx, request) : ''}
${
  request.confirmation
    ? html`<section class="card confirmation" aria-labelledby="confirmation-title"><h2 id="confirmation-title">${text(ctx, 'confirmationTitle')}</h2><p>${request.confirmation.message}</p></section>`
    : ''
}
${!editable && request.submissions.length ? renderSubmitted(ctx, request) : ''}
${
  request.personal_message
    ? html`<section class="card message" aria-labelledby="message-title"><h2 id="message-title">${text(ctx, 'messageFromOwner', { owner: request.owner_name })}</h2><p>${request.personal_message}</p></section>`
    : ''
}
${
  request.attachments.length
    ? html`<section class="card" aria-labelledby="owner-files-title"><h2 id="owner-files-title">${text(ctx, 'ownerFiles', { owner: request.owner_name })}</h2><ul class="files owner">${request.attachments.map((f) => html`<li>${renderFileLink(ctx, f)}</li>`)}</ul></section>`
    : ''
}
<section aria-labelledby="checklist-title">
  <h2 id="checklist-title">${text(ctx, 'checklist', { owner: request.owner_name })}</h2>
  ${renderProgress(ctx, request.items)}
  <ol class="items">${request.items.map((item) => renderItem(ctx, item, editable))}</ol>
</section>
${
  editable
    ? html`<form class="card submit" id="submit-form">
  ${request.disable_submission_comments ? '' : html`<label for="comment">${text(ctx, 'commentLabel', { owner: request.owner_name })}</label><textarea id="comment" name="comment" rows="3" maxlength="5000"></textarea>`}
  <p class="error" id="submit-error" role="alert"></p>
  <button type="submit" class="primary" id="submit-button">${text(ctx, 'submit', { owner: request.owner_name })}</button>
</form>`
    : ''
}`;
}

/** The page's parts the script reads at start: the token, texts and what the server rendered from. */
/** What the view functions need of a page's boot data, on the server and in the page's scripts alike. */
export const contextOf = (boot: PortalBoot): ViewContext => ({
  token: boot.token,
  texts: boot.texts,
  language: boot.language,
  maxUploadBytes: boot.maxUploadBytes,
});

export type PortalBoot = {
  token: string;
  /** The link's API (`/r/{token}/api`; a share's `/s/{token}/api`). */
  api: string;
  /** After signing in: render the request from the API, or reload the page (a share's, rendered by the server). */
  afterSignIn: 'render' | 'reload';
  language: string;
  texts: PortalTexts;
  maxUploadBytes: number;
  /** The signing view's script and pdf.js's worker, loaded where a contract is to be signed. */
  signing?: { script: string; worker: string };
  signIn: SignInInfo;
  request: PortalRequest | null;
  focus: 'code' | null;
};
