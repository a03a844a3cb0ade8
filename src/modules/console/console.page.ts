import { SAME_ORIGIN_REFERRER } from '../../kernel/http/auth';
import { join } from 'node:path';
import type { BundledAssets } from '../../kernel/http/bundle';
import { DASHBOARD_STYLESHEET } from '../dashboard/dashboard.routes';

// The owner's console: one HTML shell for every path under /app, which the script (src/web/console/)
// fills in from the GraphQL API with the session cookie. The shell holds no data.

export const CONSOLE_ASSET_PREFIX = '/app/assets/';

/** The console's styles: the dashboard's, which it builds on, then its own (the contract editor's too). */
export const CONSOLE_STYLESHEETS = [DASHBOARD_STYLESHEET, join(__dirname, '../../web/console/console.page.css')];

/**
 * Scripts and styles from Gather alone, no inline script or style; data over HTTP and WebSocket to
 * Gather alone. Documents are previewed from `blob:` copies the script fetched (a PDF in a frame, an
 * image), so nothing a recipient uploaded is ever opened as a page of this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  'frame-src blob:',
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function renderConsolePage(assets: BundledAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${SAME_ORIGIN_REFERRER}">
<title>Gather</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${CONSOLE_ASSET_PREFIX}${assets.style.name}">
</head>
<body>
<div id="root"><p class="boot" role="status">Loading the console…</p></div>
<noscript><p class="boot">The console needs JavaScript. The API is at <a href="/graphiql">/graphiql</a>.</p></noscript>
<script src="${CONSOLE_ASSET_PREFIX}${assets.script.name}"></script>
</body>
</html>
`;
}
