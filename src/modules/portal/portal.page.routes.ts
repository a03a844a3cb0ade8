import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serveBundledAssets } from '../../kernel/http/bundle';
import { REQUEST_SIGN_IN } from './portal.access';
import { ASSET_PREFIX, portalAssets } from './portal.assets';
import { apiBase, callRecipientApi } from './portal.page.api';
import {
  brandStyle,
  languageFromHeader,
  PORTAL_CSP,
  renderEndPage,
  renderPortalPage,
  type EndPageKind,
} from './portal.page';
import { sessionToken } from './portal.routes';
import { portalLanguage, textsFor } from './portal.texts';
import { portalUploadRoutes } from './portal.uploads';
import type { PortalBoot, PortalRequest, SignInInfo } from './portal.view';

// The recipient's pages: `GET /r/{token}` (the portal), `GET /r/{token}/verify` (the same, at the code
// step) and the page's assets. The page reads what it shows from the recipient API (`/r/{token}/api`)
// in-process, with the recipient's own cookie, so it sees exactly what a custom front end would.

type TokenParams = { token: string };

async function sendEndPage(reply: FastifyReply, request: FastifyRequest, kind: EndPageKind) {
  const assets = await portalAssets();
  return reply
    .code(kind === 'notFound' ? 404 : 410)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PORTAL_CSP)
    .send(renderEndPage(kind, languageFromHeader(request.headers['accept-language']), assets));
}

async function servePortal(
  scope: FastifyInstance,
  request: FastifyRequest<{ Params: TokenParams }>,
  reply: FastifyReply,
  focus: 'code' | null,
) {
  const { token } = request.params;
  const base = apiBase(token);
  const info = await callRecipientApi(scope, request, { method: 'GET', path: base });
  if (info.status === 404) return sendEndPage(reply, request, 'notFound');
  // The API says which in words only: `This request has expired`, `This request is closed`.
  if (info.status === 410)
    return sendEndPage(
      reply,
      request,
      /expired/i.test(info.json<{ detail?: string }>().detail ?? '') ? 'expired' : 'closed',
    );
  if (info.status !== 200) throw new Error(`GET ${base} answered ${info.status} to the portal page`);
  const signIn = info.json<SignInInfo>();

  // A link opened from another site (the recipient's mail) comes without the SameSite=Strict session
  // cookie the browser may hold: one reload from this page brings it, rather than a new session per view.
  if (
    signIn.sign_in.steps.length === 0 &&
    !sessionToken(request, REQUEST_SIGN_IN) &&
    request.headers['sec-fetch-site'] === 'cross-site'
  )
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', PORTAL_CSP)
      .send('<!doctype html><meta http-equiv="refresh" content="0"><title>Gather</title>');
  // A recipient without sign-in steps gets its session with the page; the others sign in on it.
  // (A signed-in user's cookie is no session of the link: hence `sessionToken`, not any cookie.)
  if (signIn.sign_in.steps.length === 0 && !sessionToken(request, REQUEST_SIGN_IN)) {
    const session = await callRecipientApi(scope, request, { method: 'POST', path: `${base}/session`, payload: {} });
    if (session.status === 200 && session.setCookie) {
      reply.header('set-cookie', session.setCookie);
      const cookie = (Array.isArray(session.setCookie) ? session.setCookie : [session.setCookie])
        .map((c) => c.split(';')[0])
        .join('; ');
      request.headers.cookie = cookie;
    }
  }
  let portalRequest: PortalRequest | null = null;
  if (sessionToken(request, REQUEST_SIGN_IN)) {
    const view = await callRecipientApi(scope, request, { method: 'GET', path: `${base}/request` });
    if (view.status === 200) portalRequest = view.json<PortalRequest>();
  }

  const language = portalLanguage(portalRequest?.language ?? signIn.request.language);
  const boot: PortalBoot = {
    token,
    api: base,
    afterSignIn: 'render',
    language,
    locale: language === 'en' ? 'en-US' : language,
    texts: textsFor(language),
    maxUploadBytes: scope.contexts.settings.maxUploadBytes,
    signIn,
    request: portalRequest,
    focus,
  };
  const assets = await portalAssets();
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', brandStyle(portalRequest?.branding ?? signIn.branding)?.csp ?? PORTAL_CSP)
    .header('x-content-type-options', 'nosniff')
    .send(renderPortalPage(boot, assets));
}

export async function portalPageRoutes(scope: FastifyInstance): Promise<void> {
  // The recipient's link is its credential, and its session a cookie: no API key on these routes.
  const open = { config: { public: true } };
  serveBundledAssets(scope, ASSET_PREFIX, portalAssets);
  scope.get<{ Params: TokenParams }>('/r/:token', open, (request, reply) => servePortal(scope, request, reply, null));
  scope.get<{ Params: TokenParams }>('/r/:token/verify', open, (request, reply) =>
    servePortal(scope, request, reply, 'code'),
  );
  await portalUploadRoutes(scope);
}
