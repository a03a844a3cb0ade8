import { Upload, type HttpRequest } from 'tus-js-client';
import {
  html,
  refusalOf,
  renderRequest,
  text,
  type PortalBoot,
  type PortalRequest,
  contextOf,
} from '../../modules/portal/portal.view';

// The portal page's script (bundled by portal.assets.ts). It signs in, then sends each change to the
// recipient API and re-renders the page from the API's answer with the server's own view functions.
// Uploads go through the tus endpoint, so a dropped connection continues from the last byte received.

const boot = JSON.parse(document.getElementById('portal-boot')!.textContent!) as PortalBoot;
const ctx = contextOf(boot);
const API = boot.api;
const content = document.getElementById('content')!;
const statusLine = document.getElementById('status')!;
let current: PortalRequest | null = boot.request;

/** Said politely to screen readers, and shown at the bottom of the screen for a while. */
let statusTimer: ReturnType<typeof setTimeout> | undefined;
function say(message: string): void {
  statusLine.textContent = message;
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => (statusLine.textContent = ''), 6000);
}

function showError(id: string, message: string): void {
  const element = document.getElementById(id);
  if (element) element.textContent = message;
  else say(message);
}

class Offline extends Error {}

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(API + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Offline();
  }
}

/**
 * What to tell the recipient about a refused call, in the page's language: the API explains in English, so
 * the page says what the status means (a refusal of a change after the submission is `invalid_state`).
 */
async function describe(response: Response): Promise<string> {
  return describeStatus(response.status, await response.text().catch(() => ''));
}

function describeStatus(status: number, body: string): string {
  if (status === 401 && current) return text(ctx, 'sessionExpired');
  if (status === 404) return text(ctx, 'errorGone');
  if (status === 410) return text(ctx, 'errorClosed');
  if (status === 413) return text(ctx, 'errorTooLarge');
  if (status === 415) return text(ctx, 'errorFileType');
  if (status === 429) return text(ctx, 'errorTooMany');
  if (status === 422 && body.includes('invalid_state')) return text(ctx, 'errorNotNow');
  if (status === 400 || status === 422) return text(ctx, 'errorRefused');
  return text(ctx, 'errorGeneric', { status });
}

function retryAfterSeconds(response: Response): number {
  return Number(response.headers.get('retry-after')) || 60;
}

// ---- Rendering ----

/**
 * Re-renders the signed-in page from `request`, keeping what the recipient is in the middle of:
 * upload progress lists, drawings, typed values and the focus.
 */
function render(request: PortalRequest): void {
  current = request;
  const focused = document.activeElement?.id;
  const focusedItem = document.activeElement?.closest('.item')?.id;
  const kept = new Map<string, Element>();
  // Upload rows matter only while files can still be sent; drawings always until sent.
  content
    .querySelectorAll(request.can_change ? '.uploads, canvas.pad' : 'canvas.pad')
    .forEach((el) => kept.set(el.id || `pad-${(el as HTMLElement).dataset.item}`, el));
  const values = new Map<string, string>();
  content
    .querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[type=text], input[type=date], textarea')
    .forEach((el) => {
      if (el.id && el.value !== el.defaultValue) values.set(el.id, el.value);
    });
  // Ticks in contract fields and the signature's kind are the recipient's until sent, as typed values are.
  const ticked = new Map<string, boolean>();
  content
    .querySelectorAll<HTMLInputElement>(
      'input[data-field][type=checkbox], input[data-field][type=radio], input[data-action=signature-kind]',
    )
    .forEach((el) => {
      if (el.id && el.checked !== el.defaultChecked) ticked.set(el.id, el.checked);
    });
  content.innerHTML = renderRequest(ctx, request).value;
  content.querySelectorAll('.uploads, canvas.pad').forEach((el) => {
    const old = kept.get(el.id || `pad-${(el as HTMLElement).dataset.item}`);
    if (old) el.replaceWith(old);
  });
  values.forEach((value, id) => {
    const el = document.getElementById(id) as HTMLInputElement | null;
    if (el) el.value = value;
  });
  ticked.forEach((checked, id) => {
    const el = document.getElementById(id) as HTMLInputElement | null;
    if (!el) return;
    el.checked = checked;
    if (checked && el.dataset.action === 'signature-kind') showSignatureKind(el);
  });
  content.querySelectorAll('canvas.pad').forEach((pad) => preparePad(pad as HTMLCanvasElement));
  showContracts();
  // The focus stays where it was; when that control is gone (a removed file), on its item's heading.
  const focus =
    (focused && document.getElementById(focused)) ||
    (focusedItem && document.getElementById(focusedItem)?.querySelector('h3'));
  if (focus) {
    if (focus.tabIndex < 0) focus.setAttribute('tabindex', '-1');
    focus.focus();
  }
}

async function refresh(): Promise<void> {
  const response = await call('GET', '/request');
  if (response.ok) render((await response.json()) as PortalRequest);
  else if (response.status === 401) window.location.reload();
  else say(await describe(response));
}

// ---- Sign-in ----

async function sendCode(button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  try {
    const response = await call('POST', '/code');
    if (response.ok) {
      const destination = boot.signIn.sign_in.code_destination ?? '';
      showError('signin-error', '');
      say(text(ctx, 'codeSent', { destination }));
      button.textContent = text(ctx, 'sendCodeAgain');
      document.getElementById('signin-code')?.focus();
    } else if (response.status === 429) {
      showError('signin-error', text(ctx, 'waitBeforeCode', { seconds: retryAfterSeconds(response) }));
    } else {
      showError('signin-error', await describe(response));
    }
  } finally {
    button.disabled = false;
  }
}

async function signIn(form: HTMLFormElement): Promise<void> {
  const answer = (form.querySelector('#signin-answer') as HTMLInputElement | null)?.value.trim();
  const code = (form.querySelector('#signin-code') as HTMLInputElement | null)?.value.trim();
  const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
  button.disabled = true;
  button.textContent = text(ctx, 'signingIn');
  try {
    const response = await call('POST', '/session', {
      ...(answer !== undefined && { answer }),
      ...(code !== undefined && { code }),
    });
    if (response.ok && boot.afterSignIn === 'reload') {
      window.location.reload();
      return;
    }
    if (response.ok) {
      await refresh();
      document.querySelector<HTMLElement>('#checklist-title')?.focus();
      return;
    }
    if (response.status === 401) showError('signin-error', text(ctx, 'wrongSignIn'));
    else if (response.status === 429)
      showError('signin-error', text(ctx, 'tooManyTries', { minutes: Math.ceil(retryAfterSeconds(response) / 60) }));
    else showError('signin-error', await describe(response));
  } finally {
    button.disabled = false;
    button.textContent = text(ctx, 'signIn');
  }
}

// ---- Uploads (tus) ----

type Running = { upload: Upload; file: File; row: HTMLLIElement; itemId: string };
const running = new Map<string, Running>();
let uploadCount = 0;

function uploadRow(running: Running, message: string, percent: number | null, resumable = false): void {
  const { row, file } = running;
  row.innerHTML = html`<span class="${resumable ? 'failed' : ''}">${message}</span>${
    percent !== null ? html`<progress max="100" value="${percent}" aria-label="${file.name}"></progress>` : ''
  }${resumable ? html`<button type="button" class="link" data-action="resume-upload" data-upload="${row.id}" aria-label="${text(ctx, 'resumeUpload', { name: file.name })}">${text(ctx, 'resume')}</button>` : ''}`.value;
}

function percentOf(sent: number, total: number): number {
  return total ? Math.floor((sent / total) * 100) : 100;
}

function startUpload(itemId: string, file: File): void {
  const list = document.getElementById(`uploads-${itemId}`)!;
  // Uploads of this page still going or done, which the item's most files count before the page shows them.
  const started = Array.from(list.children).filter((li) => !li.querySelector('.failed')).length;
  const row = document.createElement('li');
  row.id = `upload-${++uploadCount}`;
  list.append(row);
  const item = current?.items.find((i) => i.id === itemId);
  const refusal = item ? refusalOf(ctx, item, file, started) : null;
  if (refusal) {
    row.innerHTML = html`<span class="failed">${refusal}</span>`.value;
    return;
  }
  let lastPercent = 0;
  const upload: Upload = new Upload(file, {
    endpoint: `${API}/uploads`,
    metadata: { item_id: itemId, filename: file.name, filetype: file.type || 'application/octet-stream' },
    // A retry after a short drop continues where the server's offset says; longer drops wait for `online`.
    retryDelays: [0, 1000, 3000, 5000],
    // One file in two items, or in two requests, is two uploads.
    fingerprint: async (f: File) => ['gather', boot.token, itemId, f.name, f.type, f.size, f.lastModified].join('/'),
    removeFingerprintOnSuccess: true,
    onBeforeRequest(request: HttpRequest) {
      (request.getUnderlyingObject() as XMLHttpRequest).withCredentials = true;
    },
    onProgress(sent, total) {
      const percent = percentOf(sent, total);
      // Screen readers hear every tenth percent, not every chunk.
      if (percent === 100 || Math.floor(percent / 10) !== Math.floor(lastPercent / 10))
        say(text(ctx, 'uploading', { name: file.name, percent }));
      lastPercent = percent;
      uploadRow(entry, text(ctx, 'uploading', { name: file.name, percent }), percent);
    },
    onShouldRetry(error, attempt, options) {
      const status = error.originalResponse?.getStatus() ?? 0;
      // tus-js-client's own rule: retry what the server did not refuse, while the browser is online.
      const retry =
        attempt < (options.retryDelays?.length ?? 0) &&
        (status === 0 || status >= 500 || status === 409 || status === 423) &&
        navigator.onLine;
      if (retry) uploadRow(entry, text(ctx, 'uploadRetrying', { name: file.name, percent: lastPercent }), lastPercent);
      return retry;
    },
    onSuccess() {
      running.delete(row.id);
      uploadRow(entry, text(ctx, 'uploaded', { name: file.name }), null);
      say(text(ctx, 'uploaded', { name: file.name }));
      setTimeout(() => row.remove(), 4000);
      void refresh();
    },
    onError(error) {
      const response = (error as { originalResponse?: { getStatus(): number; getBody(): string } | null })
        .originalResponse;
      const status = response?.getStatus() ?? 0;
      if (status === 0 || !navigator.onLine) {
        // The connection dropped: the server keeps what it received, and `online` (or the button) goes on.
        // The row says so (its list is a live region).
        uploadRow(entry, text(ctx, 'uploadPaused', { name: file.name, percent: lastPercent }), lastPercent, true);
        return;
      }
      running.delete(row.id);
      const reason = describeStatus(status, response?.getBody() ?? '');
      uploadRow(entry, text(ctx, 'uploadFailed', { name: file.name, reason }), null);
      showError(`error-${itemId}`, text(ctx, 'uploadFailed', { name: file.name, reason }));
    },
  });
  const entry: Running = { upload, file, row, itemId };
  running.set(row.id, entry);
  uploadRow(entry, text(ctx, 'uploading', { name: file.name, percent: 0 }), 0);
  // A file picked again after the page was closed continues the upload the server kept.
  void upload.findPreviousUploads().then((previous) => {
    if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
    upload.start();
  });
}

function resumeUploads(): void {
  running.forEach(({ upload }) => upload.start());
}

// ---- Contracts on their pages ----

/**
 * Where a contract is to be signed, the signing script (pdf.js, loaded once, only then) draws its pages and puts
 * the fields at their places; it hears of each re-render. Without it the fields stay a list.
 */
let signingLoaded = false;
function showContracts(): void {
  if (!boot.signing || !content.querySelector('.sign-pages')) return;
  if (signingLoaded) {
    document.dispatchEvent(new Event('portal:rendered'));
    return;
  }
  signingLoaded = true;
  const script = document.createElement('script');
  script.src = boot.signing.script;
  script.dataset.worker = boot.signing.worker;
  document.head.append(script);
}

// ---- Drawn signatures ----

const inked = new WeakSet<HTMLCanvasElement>();

function preparePad(pad: HTMLCanvasElement): void {
  if (pad.dataset.ready) return;
  pad.dataset.ready = '1';
  const pen = pad.getContext('2d')!;
  pen.lineWidth = 4;
  pen.lineCap = 'round';
  pen.lineJoin = 'round';
  pen.strokeStyle = '#111';
  let drawing = false;
  const at = (event: PointerEvent) => {
    const box = pad.getBoundingClientRect();
    return [
      ((event.clientX - box.left) * pad.width) / box.width,
      ((event.clientY - box.top) * pad.height) / box.height,
    ] as const;
  };
  pad.addEventListener('pointerdown', (event) => {
    drawing = true;
    pad.setPointerCapture(event.pointerId);
    const [x, y] = at(event);
    pen.beginPath();
    pen.moveTo(x, y);
    pen.lineTo(x + 0.1, y + 0.1);
    pen.stroke();
    inked.add(pad);
    event.preventDefault();
  });
  pad.addEventListener('pointermove', (event) => {
    if (!drawing) return;
    const [x, y] = at(event);
    pen.lineTo(x, y);
    pen.stroke();
  });
  const stop = () => (drawing = false);
  pad.addEventListener('pointerup', stop);
  pad.addEventListener('pointercancel', stop);
}

async function sign(form: HTMLFormElement, itemId: string): Promise<void> {
  const fields: Record<string, string> = {};
  form.querySelectorAll<HTMLInputElement>('[data-field]').forEach((input) => {
    fields[input.dataset.field!] =
      input.type === 'checkbox' || input.type === 'radio' ? String(input.checked) : input.value;
  });
  const kind = (form.querySelector('[data-action=signature-kind]:checked') as HTMLInputElement).value;
  const pad = form.querySelector('canvas.pad') as HTMLCanvasElement;
  const typed = (form.querySelector('.typed-signature') as HTMLInputElement).value.trim();
  if ((kind === 'TYPED' && !typed) || (kind === 'DRAWN' && !inked.has(pad))) {
    showError(`error-${itemId}`, text(ctx, 'signatureMissing'));
    return;
  }
  const signature =
    kind === 'TYPED'
      ? { type: 'TYPED', text: typed }
      : { type: 'DRAWN', png_base64: pad.toDataURL('image/png').replace(/^data:image\/png;base64,/, '') };
  await change(itemId, 'POST', `/items/${itemId}/sign`, { fields, signature }, text(ctx, 'signed'));
}

// ---- Changes ----

/** Sends one change, then shows the request as the API now answers it. */
async function change(
  itemId: string | null,
  method: string,
  path: string,
  body: unknown,
  done: string,
): Promise<boolean> {
  const errorId = itemId ? `error-${itemId}` : 'submit-error';
  showError(errorId, '');
  try {
    const response = await call(method, path, body);
    if (!response.ok) {
      showError(errorId, await describe(response));
      return false;
    }
    await refresh();
    say(done);
    return true;
  } catch (err) {
    if (err instanceof Offline) showError(errorId, text(ctx, 'errorOffline'));
    else throw err;
    return false;
  }
}

document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  // The language switch is a plain form: the page itself answers it.
  if (form.classList.contains('language')) return;
  event.preventDefault();
  const itemId = form.dataset.item ?? '';
  if (form.id === 'signin-form') void signIn(form);
  else if (form.dataset.action === 'answer') {
    const answer = (form.querySelector('textarea') as HTMLTextAreaElement).value;
    void change(itemId, 'PUT', `/items/${itemId}/answer`, { answer }, text(ctx, 'answerSaved'));
  } else if (form.dataset.action === 'form') {
    // Read-only fields are shown, not sent: the server keeps their values.
    const fields = [...form.querySelectorAll<HTMLInputElement>('input[data-field]:not([readonly])')];
    const answers = Object.fromEntries(fields.map((input) => [input.dataset.field!, input.value]));
    void change(itemId, 'PUT', `/items/${itemId}/form`, { answers }, text(ctx, 'formSaved'));
  } else if (form.dataset.action === 'sign') void sign(form, itemId);
  else if (form.id === 'submit-form') {
    const comment = (form.querySelector('#comment') as HTMLTextAreaElement | null)?.value.trim();
    const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
    button.disabled = true;
    button.textContent = text(ctx, 'submitting');
    void change(null, 'POST', '/submit', comment ? { comment } : {}, text(ctx, 'submittedTitle')).then((sent) => {
      if (sent) {
        document.getElementById('sent-title')?.setAttribute('tabindex', '-1');
        document.getElementById('sent-title')?.focus();
        window.scrollTo(0, 0);
      } else if (button.isConnected) {
        button.disabled = false;
        button.textContent = text(ctx, 'submit', { owner: current?.owner_name ?? '' });
      }
    });
  }
});

document.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
  if (!target || target.tagName === 'INPUT' || target.tagName === 'FORM') return;
  const { action, item, document: documentId } = target.dataset;
  if (action === 'send-code') void sendCode(target as HTMLButtonElement);
  else if (action === 'remove-document') {
    const name = target.dataset.name ?? '';
    void change(
      item!,
      'DELETE',
      `/items/${item}/documents/${documentId}`,
      undefined,
      text(ctx, 'fileRemoved', { name }),
    );
  } else if (action === 'clear-pad') {
    const pad = document.querySelector<HTMLCanvasElement>(`canvas.pad[data-item="${item}"]`)!;
    pad.getContext('2d')!.clearRect(0, 0, pad.width, pad.height);
    inked.delete(pad);
  } else if (action === 'resume-upload') running.get(target.dataset.upload!)?.upload.start();
});

document.addEventListener('change', (event) => {
  const input = event.target as HTMLInputElement;
  const itemId = input.dataset.item!;
  if (input.dataset.action === 'upload') {
    Array.from(input.files ?? []).forEach((file) => startUpload(itemId, file));
    input.value = '';
  } else if (input.dataset.action === 'not-applicable') {
    void change(itemId, 'PUT', `/items/${itemId}/not-applicable`, { is_na: input.checked }, text(ctx, 'saved'));
  } else if (input.dataset.action === 'signature-kind') showSignatureKind(input);
});

function showSignatureKind(input: HTMLInputElement): void {
  const form = input.closest('form')!;
  (form.querySelector('.sig-typed') as HTMLElement).hidden = input.value !== 'TYPED';
  (form.querySelector('.sig-drawn') as HTMLElement).hidden = input.value !== 'DRAWN';
}

window.addEventListener('online', resumeUploads);

// The server rendered the signed-in page: its signature pads need their pens, its contracts their pages.
content.querySelectorAll('canvas.pad').forEach((pad) => preparePad(pad as HTMLCanvasElement));
showContracts();
