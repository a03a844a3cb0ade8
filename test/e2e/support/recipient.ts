import type { ListeningApp } from './server';
import { client } from '../../support/app';

/** The latest one-time code mailed to `address` by the test's SMTP server (waits for it to arrive). */
export async function mailedCode(app: ListeningApp, address: string, after = 0, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const codes = app.smtp.received
      .slice(after)
      .filter((m) => m.envelopeTo.includes(address))
      .map((m) => /\b(\d{6})\b/.exec(m.mail.text ?? '')?.[1])
      .filter((code): code is string => Boolean(code));
    if (codes.length) return codes[codes.length - 1];
    if (Date.now() > deadline) throw new Error(`no code mailed to ${address} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates a request through REST as the tenant's admin; fails the test on anything but 200. */
export async function createPortalRequest(app: ListeningApp, body: Record<string, unknown>) {
  const response = await client(app.app, app.tenant.apiKey).post('/requests', body);
  if (response.statusCode !== 200) throw new Error(`POST /requests answered ${response.statusCode}: ${response.body}`);
  return response.json() as {
    id: string;
    items: { id: string; name: string; type: string }[];
    recipients: { id: string; email: string; request_link: string; password: string; mfa_link?: string }[];
  };
}
