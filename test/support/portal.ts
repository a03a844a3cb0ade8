import type { FastifyInstance } from 'fastify';
import type { InjectOptions } from 'light-my-request';
import { client } from './app';
import { createRequest } from './fixtures';
import { multipart } from './files';

/** The token of a recipient's link (`…/r/{token}`). */
export const tokenOf = (requestLink: string): string => requestLink.slice(requestLink.lastIndexOf('/r/') + 3);

/** A request made by the owner, and the link, token and password of its first recipient. */
export async function requestWithLink(app: FastifyInstance, apiKey: string, overrides: Record<string, unknown> = {}) {
  const request = await createRequest(app, apiKey, overrides);
  const recipient = request.recipients[0];
  return {
    request,
    token: tokenOf(recipient.request_link),
    password: recipient.password as string,
    items: request.items as Array<{ id: string; name: string }>,
  };
}

/** How the recipient's calls reach the service: its address and headers (user agent). */
export type PortalClient = { remoteAddress?: string; headers?: Record<string, string> };

/** The recipient API of one link, with or without a session token. */
export function portal(app: FastifyInstance, token: string, session?: string, from: PortalClient = {}) {
  const base = `/r/${token}/api`;
  const send = (options: InjectOptions) =>
    app.inject({
      remoteAddress: from.remoteAddress,
      ...options,
      headers: {
        ...from.headers,
        ...(session ? { authorization: `Bearer ${session}` } : {}),
        ...(options.headers as Record<string, string>),
      },
    });
  return {
    base,
    info: () => send({ method: 'GET', url: base }),
    sendCode: () => send({ method: 'POST', url: `${base}/code` }),
    signIn: (body: { answer?: string; code?: string } = {}) =>
      send({ method: 'POST', url: `${base}/session`, payload: body }),
    request: () => send({ method: 'GET', url: `${base}/request` }),
    upload: (itemId: string, content: Buffer | string, filename = 'w2.pdf') => {
      const { payload, headers } = multipart(content, { filename });
      return send({ method: 'POST', url: `${base}/items/${itemId}/documents`, payload, headers });
    },
    deleteDocument: (itemId: string, documentId: string) =>
      send({ method: 'DELETE', url: `${base}/items/${itemId}/documents/${documentId}` }),
    answer: (itemId: string, answer: unknown) =>
      send({ method: 'PUT', url: `${base}/items/${itemId}/answer`, payload: { answer } }),
    notApplicable: (itemId: string, isNa: boolean) =>
      send({ method: 'PUT', url: `${base}/items/${itemId}/not-applicable`, payload: { is_na: isNa } }),
    submit: (comment?: string) =>
      send({ method: 'POST', url: `${base}/submit`, payload: comment === undefined ? {} : { comment } }),
    get: (path: string) => send({ method: 'GET', url: `${base}${path}` }),
    graphql: async (query: string, variables?: Record<string, unknown>) =>
      (
        await app.inject({
          method: 'POST',
          url: '/graphql',
          payload: { query, variables },
          headers: session ? { authorization: `Bearer ${session}` } : {},
        })
      ).json(),
  };
}

/** Signs in to a link that asks for nothing (auth NONE) and answers its session token. */
export async function signedIn(
  app: FastifyInstance,
  token: string,
  from: PortalClient = {},
): Promise<ReturnType<typeof portal> & { session: string }> {
  const response = await portal(app, token, undefined, from).signIn();
  if (response.statusCode !== 200) throw new Error(`sign-in answered ${response.statusCode}: ${response.body}`);
  const session = response.json().session_token as string;
  return { ...portal(app, token, session, from), session };
}

export { client };
