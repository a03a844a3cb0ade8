import { formatDate, formatMessage, formatSize } from '../../i18n/format';
import { t, type PortalTexts } from '../../i18n/i18n';
import type { PortalAssets } from '../portal/portal.assets';
import { documentOf, jsonIsland, languageSwitch } from '../portal/portal.page';
import {
  html,
  renderHeader,
  renderSignIn,
  type SafeHtml,
  type PortalBoot,
  type PortalBranding,
  type SignInInfo,
} from '../portal/portal.view';
import type { Language } from '../requests/request.enums';

// The share's page, in the portal's look and with the organization's branding: the portal's sign-in
// form (and its script, told to reload the page once signed in), then the files, each a plain link
// to its logged download. Everything goes through `html`, which escapes it.

/** `GET /s/{token}/api/share`. */
export type ShareView = {
  title: string;
  organization_name: string;
  owner_name: string;
  message: string | null;
  expiration_date: string | null;
  language: string;
  files: { id: string; file_name: string; content_type: string; size: number; download_url: string }[];
  branding: PortalBranding;
};

/** `GET /s/{token}/api`. */
export type ShareSignIn = Omit<SignInInfo, 'request'> & {
  share: {
    title: string;
    organization_name: string;
    owner_name: string;
    expiration_date: string | null;
    language: string;
  };
};

/** `pagePath`: the page's own path, where its language switch goes. */
type PageOptions = { token: string; language: Language; texts: PortalTexts; assets: PortalAssets; pagePath: string };

const header = (
  options: PageOptions,
  share: { title: string; organization_name: string; owner_name: string; branding: PortalBranding },
) =>
  renderHeader(
    { token: options.token, texts: options.texts, language: options.language, maxUploadBytes: 0 },
    {
      name: share.title,
      organization_name: share.organization_name,
      owner_name: share.owner_name,
      due_date: null,
      branding: share.branding,
    },
    languageSwitch(options.pagePath),
  );

const title = (options: PageOptions, share: { title: string; organization_name: string }) =>
  formatMessage(options.language, options.texts.pageTitle, {
    request: share.title,
    organization: share.organization_name,
  });

/** The files, once signed in. */
export function renderShare(options: PageOptions, share: ShareView): string {
  const { language } = options;
  const body = html`${header(options, share)}
<div id="content">
${share.message ? html`<section class="card message" aria-labelledby="message-title"><h2 id="message-title">${t(language, 'share.messageFrom', { owner: share.owner_name })}</h2><blockquote>${share.message}</blockquote></section>` : ''}
<section class="card" aria-labelledby="files-title">
  <h2 id="files-title">${t(language, 'share.filesTitle')}</h2>
  ${share.expiration_date ? html`<p class="due">${t(language, 'share.availableUntil', { date: formatDate(share.expiration_date, language) })}</p>` : ''}
  ${
    share.files.length
      ? html`<ul class="files">${share.files.map(
          (file) =>
            html`<li><span class="name"><a href="${file.download_url}" download aria-label="${formatMessage(language, options.texts.download, { name: file.file_name })}">${file.file_name}</a></span> <span class="size">${formatSize(file.size, language)}</span></li>`,
        )}</ul>`
      : html`<p>${t(language, 'share.noFiles')}</p>`
  }
  <p class="hint">${t(language, 'share.downloadHint', { owner: share.owner_name })}</p>
</section>
</div>`;
  return documentOf({
    language: options.language,
    title: title(options, share),
    assets: options.assets,
    body,
    texts: options.texts,
    branding: share.branding,
  });
}

/** The sign-in form (the portal's, driven by the portal's script against the share's API). */
export function renderShareSignIn(
  options: PageOptions,
  info: ShareSignIn,
  api: string,
  maxUploadBytes: number,
): string {
  const signIn: SignInInfo = {
    ...info,
    request: {
      name: info.share.title,
      organization_name: info.share.organization_name,
      owner_name: info.share.owner_name,
      due_date: null,
      language: info.share.language,
    },
  };
  const boot: PortalBoot = {
    token: options.token,
    api,
    afterSignIn: 'reload',
    language: options.language,
    texts: options.texts,
    maxUploadBytes,
    signIn,
    request: null,
    focus: null,
  };
  const ctx = { token: options.token, texts: options.texts, language: options.language, maxUploadBytes };
  const body = html`${header(options, { ...info.share, branding: info.branding })}
<div id="content">${renderSignIn(ctx, signIn)}</div>
<p class="status" id="status" role="status" aria-live="polite"></p>
${jsonIsland('portal-boot', boot)}`;
  return documentOf({
    language: options.language,
    title: title(options, info.share),
    assets: options.assets,
    body,
    texts: options.texts,
    script: true,
    branding: info.branding,
  });
}

/** The body of a page about a link that leads nowhere (404) or to a share that ended (410). */
export const renderShareEnd = (title: string, text: string): SafeHtml =>
  html`<section class="card notice"><h1>${title}</h1><p>${text}</p></section>`;
