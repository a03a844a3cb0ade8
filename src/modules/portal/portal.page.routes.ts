import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CATALOGS, languageFromHeader, languageOf, resolveLanguage } from '../../i18n/i18n';
import { serveBundledAssets, type BundledAssets } from '../../kernel/http/bundle';
import { readCookie } from '../../kernel/http/cookies';
import { REQUEST_SIGN_IN } from './portal.access';
import { ASSET_PREFIX, portalAssets, SIGNING_ASSET_PREFIX, signingAssets } from './portal.assets';
import { apiBase, callRecipientApi } from './portal.page.api';
import { brandStyle, PORTAL_CSP, renderEndPage, renderPortalPage, type EndPageKind } from './portal.page';
import { sessionToken } from './portal.routes';
import { portalUploadRoutes } from './portal.uploads';
import type { PortalBoot, PortalRequest, SignInInfo } from './portal.view';

// The recipient's pages: `GET /r/{token}` (the portal), `GET /r/{token}/verify` (the same, at the code
// step) and the page's assets. The page reads what it shows from the recipient API (`/r/{token}/api`)
// in-process, with the recipient's own cookie, so it sees exactly what a custom front end would.

type TokenParams = { token: string };
export type LanguageQuery = { lang?: string | string[] };
type PageRoute = { Params: TokenParams; Querystring: LanguageQuery };

/** The cookie that keeps the language a recipient chose on a link's page, for the browser's session. */
const LANGUAGE_COOKIE = 'gather_language';

/** The language chosen on this link's page, if any. */
export const chosenLanguage = (request: FastifyRequest) => languageOf(readCookie(request.headers, LANGUAGE_COOKIE));

/**
 * A language picked with the page's switch (`?lang=fr`): kept in a cookie of the link's path until the browser
 * closes, then the page again without the query. Answers null when the request picks nothing.
 */
export function rememberLanguage(
  request: FastifyRequest<{ Querystring: LanguageQuery }>,
  reply: FastifyReply,
  linkPath: string,
) {
  if (request.query.lang === undefined) return null;
  const path = request.url.split('?')[0];
  // `?lang=a&lang=b` arrives as a list: it picks nothing.
  const language = typeof request.query.lang === 'string' ? languageOf(request.query.lang) : null;
  if (language) reply.header('set-cookie', `${LANGUAGE_COOKIE}=${language}; Path=${linkPath}; HttpOnly; SameSite=Lax`);
  return reply.code(303).header('location', path).header('cache-control', 'no-store').send();
}

async function sendEndPage(reply: FastifyReply, request: FastifyRequest, kind: EndPageKind) {
  const assets = await portalAssets();
  return reply
    .code(kind === 'notFound' ? 404 : 410)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PORTAL_CSP)
    .send(
      renderEndPage(
        kind,
        resolveLanguage(chosenLanguage(request), languageFromHeader(request.headers['accept-language'])),
        assets,
      ),
    );
}

async function servePortal(
  scope: FastifyInstance,
  request: FastifyRequest<PageRoute>,
  reply: FastifyReply,
  focus: 'code' | null,
) {
  const { token } = request.params;
  const remembered = rememberLanguage(request, reply, `/r/${token}`);
  if (remembered) return remembered;
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

  // The API answers the recipient's language (its own, else the request's); a choice made on the page comes first.
  const language = resolveLanguage(chosenLanguage(request), portalRequest?.language ?? signIn.request.language);
  const boot: PortalBoot = {
    token,
    api: base,
    afterSignIn: 'render',
    language,
    texts: CATALOGS[language].portal,
    maxUploadBytes: scope.contexts.settings.maxUploadBytes,
    signing: signingPaths(await signingAssets()),
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
    .send(renderPortalPage(boot, assets, request.url.split('?')[0]));
}

const signingPaths = (assets: BundledAssets) => ({
  script: SIGNING_ASSET_PREFIX + assets.script.name,
  worker: SIGNING_ASSET_PREFIX + assets.files['pdf.worker'].name,
});

export async function portalPageRoutes(scope: FastifyInstance): Promise<void> {
  // The recipient's link is its credential, and its session a cookie: no API key on these routes.
  const open = { config: { public: true } };
  serveBundledAssets(scope, ASSET_PREFIX, portalAssets);
  serveBundledAssets(scope, SIGNING_ASSET_PREFIX, signingAssets);
  scope.get<PageRoute>('/r/:token', open, (request, reply) => servePortal(scope, request, reply, null));
  scope.get<PageRoute>('/r/:token/verify', open, (request, reply) => servePortal(scope, request, reply, 'code'));
  await portalUploadRoutes(scope);
}
