import { SAME_ORIGIN_REFERRER } from '../../kernel/http/auth';
import { join } from 'node:path';
import type { BundledAssets } from '../../kernel/http/bundle';
import { DASHBOARD_STYLESHEET } from '../dashboard/dashboard.routes';

// The owner's console: one HTML shell for every path under /app, which the script (src/web/console/)
// fills in from the GraphQL API with the session cookie. The shell holds no data.

export const CONSOLE_ASSET_PREFIX = '/app/assets/';
/** The PDF preview's script (pdf.js) and its worker, apart from the console's (console.routes.ts). */
export const PDF_PREVIEW_ASSET_PREFIX = '/app/pdf-preview/assets/';

/** The console's styles: the dashboard's, which it builds on, then its own (the contract editor's too). */
export const CONSOLE_STYLESHEETS = [DASHBOARD_STYLESHEET, join(__dirname, '../../web/console/console.page.css')];

/**
 * Scripts and styles from Gather alone, no inline script or style; data over HTTP and WebSocket to
 * Gather alone. Documents are previewed from copies the script fetched (an image from a `blob:` URL, a
 * PDF drawn by pdf.js with its worker from Gather), so nothing a recipient uploaded is ever opened as a
 * page of this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  // pdf.js's worker (the PDF preview's, the contract editor's) from Gather: a blob: never runs as a worker.
  "worker-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The shell; `pdfPreview`'s script and worker are named on its body for the first PDF preview to load. */
export function renderConsolePage(assets: BundledAssets, pdfPreview: BundledAssets): string {
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
<body data-pdf-script="${PDF_PREVIEW_ASSET_PREFIX}${pdfPreview.script.name}" data-pdf-worker="${PDF_PREVIEW_ASSET_PREFIX}${pdfPreview.files['pdf.worker'].name}">
<div id="root"><p class="boot" role="status">Loading the console…</p></div>
<noscript><p class="boot">The console needs JavaScript. The API is at <a href="/graphiql">/graphiql</a>.</p></noscript>
<script src="${CONSOLE_ASSET_PREFIX}${assets.script.name}"></script>
</body>
</html>
`;
}
