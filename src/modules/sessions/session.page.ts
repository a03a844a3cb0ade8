import { CATALOGS } from '../../i18n/i18n';
import { SAME_ORIGIN_REFERRER } from '../../kernel/http/auth';
import type { PortalAssets } from '../portal/portal.assets';
import { documentOf } from '../portal/portal.page';
import { html, type SafeHtml } from '../portal/portal.view';
import { DEFAULT_NEXT } from './session.service';
import { SIGN_IN_LINK_MINUTES } from './session.limits';

// The sign-in pages, in the portal's look (its stylesheet, no script): plain forms that post to the sign-in API,
// which answers a form post with the next page. Everything goes through `html`, which escapes it.

/** What a page says beside its form: the link is on its way, or what went wrong. */
export type PageNote = { kind: 'sent' | 'error'; text: string };

const note = (value: PageNote | undefined) =>
  value
    ? html`<p class="${value.kind === 'error' ? 'error' : 'hint'}" id="note" role="${value.kind === 'error' ? 'alert' : 'status'}">${value.text}</p>`
    : '';

const nextField = (next: string) =>
  next === DEFAULT_NEXT ? '' : html`<input type="hidden" name="next" value="${next}">`;

function page(title: string, body: SafeHtml, assets: PortalAssets): string {
  // The portal's footer says what sent the page's recipient there; here the service is simply Gather.
  const texts = { ...CATALOGS['en-US'].portal, poweredBy: 'Gather' };
  return documentOf({
    language: 'en-US',
    title: `${title} — Gather`,
    assets,
    body,
    texts,
    referrer: SAME_ORIGIN_REFERRER,
  });
}

/** `GET /sign-in`: the e-mail address to send a link to. */
export function renderSignInPage(options: {
  next: string;
  note?: PageNote;
  email?: string;
  assets: PortalAssets;
}): string {
  const sent = options.note?.kind === 'sent';
  const body = html`<section class="card${sent ? ' sent' : ''}" aria-labelledby="title">
  <h1 id="title">Sign in to Gather</h1>
  <p>We mail you a link that signs you in. It works once, within ${String(SIGN_IN_LINK_MINUTES)} minutes.</p>
  <form method="post" action="/auth/sign-in">
    <label for="email">E-mail address</label>
    <input id="email" name="email" type="email" autocomplete="email" required ${sent ? '' : html`autofocus`} value="${options.email ?? ''}">
    ${nextField(options.next)}
    ${note(options.note)}
    <button type="submit" class="primary">${sent ? 'Send another link' : 'Send me a sign-in link'}</button>
  </form>
</section>`;
  return page('Sign in', body, options.assets);
}

/** `GET /sign-in/verify`: the page a mailed link opens, which signs in only when its button is pressed. */
export function renderVerifyPage(options: { token: string; next: string; assets: PortalAssets }): string {
  const body = html`<section class="card" aria-labelledby="title">
  <h1 id="title">Sign in to Gather</h1>
  <form method="post" action="/auth/verify">
    <p>Press the button to finish signing in in this browser.</p>
    <input type="hidden" name="token" value="${options.token}">
    ${nextField(options.next)}
    <button type="submit" class="primary" autofocus>Sign in</button>
  </form>
</section>`;
  return page('Sign in', body, options.assets);
}

/** The answer to a sign-in form that failed: why, and the way to a new link. */
export function renderSignInFailure(options: {
  title: string;
  text: string;
  next: string;
  assets: PortalAssets;
}): string {
  const again = options.next === DEFAULT_NEXT ? '/sign-in' : `/sign-in?next=${encodeURIComponent(options.next)}`;
  const body = html`<section class="card notice" aria-labelledby="title">
  <h1 id="title">${options.title}</h1>
  <p role="alert">${options.text}</p>
  <p><a class="button secondary" href="${again}">Send me a new link</a></p>
</section>`;
  return page(options.title, body, options.assets);
}
