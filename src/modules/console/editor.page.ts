import type { BundledAssets } from '../../kernel/http/bundle';

// The contract editor's page: a shell its script (src/web/editor/) fills in, pdf.js drawing the PDF's pages on
// canvases and a worker of Gather's own reading the PDF. No inline script or style, nothing from elsewhere.

export const EDITOR_ASSET_PREFIX = '/app/editor/assets/';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function shell(assets: BundledAssets, title: string, body: string, script: boolean): string {
  // No referrer at all: the page's address holds the link's token.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escape(title)} · Gather</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${EDITOR_ASSET_PREFIX}${assets.style.name}">
</head>
<body${script ? ` data-worker="${EDITOR_ASSET_PREFIX}${assets.files['pdf.worker'].name}"` : ''}>
${body}
${script ? `<script src="${EDITOR_ASSET_PREFIX}${assets.script.name}"></script>` : ''}
</body>
</html>
`;
}

export const renderEditorPage = (assets: BundledAssets): string =>
  shell(
    assets,
    'Contract editor',
    `<div id="root"><p class="boot" role="status">Opening the contract…</p></div>
<noscript><p class="boot">The editor needs JavaScript.</p></noscript>`,
    true,
  );

/** An editor link that ended or never was: says which, and offers a new link through the console (signing in). */
export function renderLinkEndedPage(assets: BundledAssets, contractId: string, why: 'expired' | 'invalid'): string {
  const title = why === 'expired' ? 'This editor link has expired' : 'This editor link is not valid';
  const again = `/app/contracts/${encodeURIComponent(contractId)}/edit`;
  return shell(
    assets,
    title,
    `<main id="main" class="page ended">
<h1>${title}</h1>
<p>Links to the contract editor work for a day. Open the contract from the console for a new one (you may be asked to sign in).</p>
<p><a class="button" href="${escape(again)}">Open the editor with a new link</a></p>
</main>`,
    false,
  );
}
