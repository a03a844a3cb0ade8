import { createHash } from 'node:crypto';
import { directionOf, formatMessage } from '../../i18n/format';
import { CATALOGS, LANGUAGE_NAMES, type PortalTexts } from '../../i18n/i18n';
import type { Language } from '../requests/request.enums';
import { ASSET_PREFIX, type PortalAssets } from './portal.assets';
import {
  html,
  renderHeader,
  renderRequest,
  renderSignIn,
  SafeHtml,
  type LanguageSwitch,
  type PortalBoot,
  type PortalBranding,
  contextOf,
} from './portal.view';

// Whole HTML documents: the portal, and the pages of a link that leads nowhere (404) or to a request
// that no longer takes anything (410).

/** Content-Security-Policy of every portal page: nothing but Gather itself, no inline script. */
export const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The organization's colour as the page's accent: one inline rule, allowed by its hash alone (the
 * policy keeps refusing any other inline style). The colour is `#RRGGBB`, checked when it was saved.
 */
export function brandStyle(branding: PortalBranding | null | undefined): { css: string; csp: string } | null {
  if (!branding?.primary_color || !/^#[0-9a-f]{6}$/i.test(branding.primary_color)) return null;
  const css = `:root { --accent: ${branding.primary_color}; }`;
  const hash = createHash('sha256').update(css).digest('base64');
  return { css, csp: PORTAL_CSP.replace("style-src 'self'", `style-src 'self' 'sha256-${hash}'`) };
}

/**
 * A whole page of the portal's look: its stylesheet, the organization's colour and support line, and the script when
 * asked.
 */
export function documentOf(options: {
  language: string;
  title: string;
  assets: PortalAssets;
  body: SafeHtml;
  texts: PortalTexts;
  script?: boolean;
  branding?: PortalBranding | null;
  /** Pages that post with the owner's session cookie say SAME_ORIGIN_REFERRER; a recipient's page sends none. */
  referrer?: string;
}): string {
  const { assets } = options;
  const style = brandStyle(options.branding);
  const support = options.branding?.support_email;
  return `<!doctype html>\n${
    html`<html lang="${options.language}" dir="${directionOf(options.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="${options.referrer ?? 'no-referrer'}">
<title>${options.title}</title>
<link rel="stylesheet" href="${ASSET_PREFIX}${assets.style.name}">
${options.script ? html`<script src="${ASSET_PREFIX}${assets.script.name}" defer></script>` : ''}
${style ? new SafeHtml(`<style>${style.css}</style>`) : ''}
</head>
<body>
<main id="main">
${options.body}
</main>
<footer>${support ? html`<p class="support">${options.texts.support} <a href="mailto:${support}">${support}</a></p>` : ''}${options.texts.poweredBy}</footer>
</body>
</html>`.value
  }\n`;
}

/** JSON inside a <script> element: `<` escaped so no string in it can close the element. */
export function jsonIsland(id: string, value: unknown): SafeHtml {
  const json = JSON.stringify(value).replace(/</g, '\\u003c');
  return new SafeHtml(`<script type="application/json" id="${id}">${json}</script>`);
}

/** The language switch of a link's page: the form goes to the page itself, which remembers the choice. */
export const languageSwitch = (pagePath: string): LanguageSwitch => ({ action: pagePath, languages: LANGUAGE_NAMES });

export function renderPortalPage(boot: PortalBoot, assets: PortalAssets, pagePath: string): string {
  const ctx = contextOf(boot);
  const summary = boot.request ?? boot.signIn.request;
  const branding = boot.request?.branding ?? boot.signIn.branding;
  const body = html`${renderHeader(ctx, { ...summary, branding }, languageSwitch(pagePath))}
<div id="content">${boot.request ? renderRequest(ctx, boot.request) : renderSignIn(ctx, boot.signIn, { focus: boot.focus })}</div>
<p class="status" id="status" role="status" aria-live="polite"></p>
${jsonIsland('portal-boot', boot)}`;
  const title = formatMessage(boot.language, boot.texts.pageTitle, {
    request: summary.name,
    organization: summary.organization_name,
  });
  return documentOf({ language: boot.language, title, assets, body, texts: boot.texts, script: true, branding });
}

export type EndPageKind = 'notFound' | 'expired' | 'closed';

export function renderEndPage(kind: EndPageKind, language: Language, assets: PortalAssets): string {
  const texts = CATALOGS[language].portal;
  const title = texts[`${kind}Title`];
  const body = html`<section class="card notice"><h1>${title}</h1><p>${texts[`${kind}Body`]}</p></section>`;
  return documentOf({ language, title, assets, body, texts });
}
