import type { BundledAssets } from '../../kernel/http/bundle';

// The dashboard's page: a static shell the script fills in (src/web/dashboard/dashboard.client.ts). It holds no data
// and needs no key to load; the key is pasted into it and stays in the tab's session storage.

export const DASHBOARD_ASSET_PREFIX = '/dashboard/assets/';

/** Scripts and styles from Gather alone; data over HTTP and WebSocket to Gather alone. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function renderDashboardPage(assets: BundledAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gather · Live dashboard</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="${DASHBOARD_ASSET_PREFIX}${assets.style.name}">
</head>
<body>
<header class="top">
  <h1>Gather <span>live dashboard</span></h1>
  <p id="status" class="status" role="status" data-state="pending">Not connected</p>
</header>
<main>
  <section id="connect" class="card connect" aria-labelledby="connect-title">
    <h2 id="connect-title">Watch your organization's requests</h2>
    <form id="key-form" autocomplete="off">
      <label for="key">API key</label>
      <div class="key-row">
        <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" placeholder="gth_…" required>
        <button type="submit">Watch</button>
      </div>
      <p id="key-error" class="error" role="alert"></p>
    </form>
    <p class="hint">The key stays in this browser tab (session storage) and goes to this server only.</p>
  </section>
  <div id="board" hidden>
    <div class="toolbar"><span id="org"></span><button id="forget" type="button">Forget key</button></div>
    <section aria-labelledby="counts-title">
      <h2 id="counts-title">Requests by state</h2>
      <ul id="counts" class="counts"></ul>
    </section>
    <div class="grid">
      <section class="card" aria-labelledby="chart-title">
        <h2 id="chart-title">Completions per day</h2>
        <div id="chart" class="chart"></div>
      </section>
      <section class="card" aria-labelledby="feed-title">
        <h2 id="feed-title">Events</h2>
        <ol id="feed" class="feed"></ol>
      </section>
    </div>
    <section aria-labelledby="list-title">
      <h2 id="list-title">Requests (<span id="request-count">0</span>) <small>latest activity first</small></h2>
      <ol id="requests" class="requests"></ol>
    </section>
  </div>
</main>
<script src="${DASHBOARD_ASSET_PREFIX}${assets.script.name}"></script>
</body>
</html>
`;
}
