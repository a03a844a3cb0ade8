import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CATALOGS, languageFromHeader, resolveLanguage, t } from '../../i18n/i18n';
import { AppError } from '../../kernel/errors/app-error';
import { sendFile } from '../../kernel/http/files';
import { Nullable, Uuid, withErrors } from '../../kernel/rest/schemas';
import { BrandingBody, restBranding } from '../organizations/organization.rest-shapes';
import { brandingView } from '../organizations/organization.service';
import { renderingViewer, requireLinkOpen } from '../portal/portal.access';
import { portalAssets } from '../portal/portal.assets';
import { callRecipientApi } from '../portal/portal.page.api';
import { brandStyle, documentOf, PORTAL_CSP } from '../portal/portal.page';
import { chosenLanguage, rememberLanguage, type LanguageQuery } from '../portal/portal.page.routes';
import {
  clientOf,
  linkSignInRoutes,
  requireLinkOf,
  sessionToken,
  SignInStepsBody,
  signInView,
} from '../portal/portal.routes';
import { languageToRest } from '../requests/request.rest-shapes';
import { findShareLink, findShareSession, SHARE_SIGN_IN, shareEnded, type ShareLink } from './share.access';
import { renderShare, renderShareEnd, renderShareSignIn, type ShareView } from './share.page';

// A share's recipient side: its page `GET /s/{token}` and its API under `/s/{token}/api` (sign-in as
// on a request's link; then the share and its files, each download logged). The page reads the API
// in-process with the recipient's own cookie, as the portal's page does.

const tags = ['Share recipient API'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const FileParams = Type.Object({ token: Type.String({ maxLength: 200 }), file_id: Uuid() });

const ShareSignInBody = Type.Object({
  share: Type.Object({
    title: Type.String(),
    organization_name: Type.String(),
    owner_name: Type.String(),
    expiration_date: Nullable(Type.String()),
    language: Type.String(),
  }),
  recipient: Type.Object({ first_name: Nullable(Type.String()) }),
  sign_in: SignInStepsBody,
  branding: BrandingBody,
});

const ShareViewBody = Type.Object({
  title: Type.String(),
  organization_name: Type.String(),
  owner_name: Type.String(),
  message: Nullable(Type.String()),
  expiration_date: Nullable(Type.String()),
  language: Type.String(),
  files: Type.Array(
    Type.Object({
      id: Type.String(),
      file_name: Type.String(),
      content_type: Type.String(),
      size: Type.Integer(),
      download_url: Type.String(),
    }),
  ),
  branding: BrandingBody,
});

const shareApi = (token: string) => `/s/${encodeURIComponent(token)}/api`;

function signInInfo(link: ShareLink, publicUrl: string) {
  return {
    share: {
      title: link.title,
      organization_name: link.organizationName,
      owner_name: link.ownerName,
      expiration_date: link.expirationDate?.toISOString() ?? null,
      language: languageToRest(link.language),
    },
    recipient: { first_name: link.firstName },
    sign_in: signInView(link),
    branding: restBranding(brandingView(publicUrl, link.branding)),
  };
}

/** The link and its signed-in recipient; 401 without a session of this link's recipient, 410 once the share ended. */
async function requireSession(scope: FastifyInstance, request: FastifyRequest): Promise<ShareLink> {
  const { token } = request.params as { token: string };
  const link = await requireLinkOf(scope, { find: findShareLink }, token);
  const now = scope.contexts.settings.clock.now();
  const credential = sessionToken(request, SHARE_SIGN_IN);
  const session = credential ? await findShareSession(scope.db, credential, now) : null;
  if (!session || session.recipientId !== link.recipientId)
    throw new AppError('UNAUTHENTICATED', `Not signed in: sign in at POST /s/{token}/api/session`);
  requireLinkOpen(link, now);
  return link;
}

type FileRow = { id: string; name: string; mime_type: string; size: number; storage_key: string };

const filesOf = (scope: FastifyInstance, shareId: string) =>
  scope.db.rows<FileRow>(
    'select sf.id, f.name, f.mime_type, f.size, f.storage_key from share_file sf join stored_file f on f.id = sf.file_id where sf.share_id = ? order by sf.position, sf.id',
    [shareId],
  );

async function shareView(scope: FastifyInstance, link: ShareLink, token: string): Promise<ShareView> {
  const settings = scope.contexts.settings;
  const [share] = await scope.db.rows<{ custom_message: string | null }>(
    'select custom_message from share where id = ?',
    [link.shareId],
  );
  return {
    title: link.title,
    organization_name: link.organizationName,
    owner_name: link.ownerName,
    message: share.custom_message,
    expiration_date: link.expirationDate?.toISOString() ?? null,
    language: languageToRest(link.language),
    files: (await filesOf(scope, link.shareId)).map((file) => ({
      id: file.id,
      file_name: file.name,
      content_type: file.mime_type,
      size: file.size,
      download_url: `${shareApi(token)}/files/${file.id}`,
    })),
    branding: restBranding(brandingView(settings.publicUrl, link.branding)),
  };
}

async function sessionRoutes(scope: FastifyInstance): Promise<void> {
  // No API key: the session is checked by requireSession.
  const session = { config: { public: true, openapi: { recipient: true } } };
  const download = { config: { public: true, openapi: { recipient: true, download: true } } };
  scope.get(
    '/s/:token/api/share',
    {
      ...session,
      schema: {
        tags,
        summary: 'The share as its signed-in recipient sees it: the message and the files',
        params: TokenParams,
        response: withErrors({ 200: ShareViewBody }, [401, 404, 410]),
      },
    },
    async (request) =>
      shareView(scope, await requireSession(scope, request), (request.params as { token: string }).token),
  );
  scope.get(
    '/s/:token/api/files/:file_id',
    {
      ...download,
      schema: {
        tags,
        summary: "Download one of the share's files (logged: who, when, which file)",
        params: FileParams,
        response: withErrors({}, [401, 404, 410]),
      },
    },
    async (request, reply) => {
      const link = await requireSession(scope, request);
      const { file_id: fileId } = request.params as { file_id: string };
      const file = (await filesOf(scope, link.shareId)).find((f) => f.id === fileId);
      if (!file) throw AppError.notFound('File');
      const client = clientOf(request);
      // Logged as the download starts: a download cut short is a download still.
      await scope.db.transaction((tx) =>
        tx.execute(
          'insert into share_download (id, organization_id, share_id, share_file_id, recipient_id, file_name, size, ip, user_agent, downloaded_at) values (gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [
            link.organizationId,
            link.shareId,
            file.id,
            link.recipientId,
            file.name,
            file.size,
            client.ip,
            client.userAgent?.slice(0, 500) ?? null,
            scope.contexts.settings.clock.now(),
          ],
        ),
      );
      const { storage } = scope.contexts.forViewer(renderingViewer(link.organizationId), {
        log: request.log,
        requestId: request.id,
      });
      return sendFile(reply, {
        stream: await storage.get(file.storage_key),
        name: file.name,
        size: file.size,
        type: file.mime_type,
      });
    },
  );
}

function page(reply: FastifyReply, status: number, body: string, csp: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

async function servePage(
  scope: FastifyInstance,
  request: FastifyRequest<{ Params: { token: string }; Querystring: LanguageQuery }>,
  reply: FastifyReply,
) {
  const { token } = request.params;
  const remembered = rememberLanguage(request, reply, `/s/${token}`);
  if (remembered) return remembered;
  const base = shareApi(token);
  const assets = await portalAssets();
  const info = await callRecipientApi(scope, request, { method: 'GET', path: base });
  if (info.status === 404 || info.status === 410) {
    const link = info.status === 410 ? await findShareLink(scope.db, token) : null;
    const ended = link && shareEnded(link, scope.contexts.settings.clock.now());
    const language = resolveLanguage(
      chosenLanguage(request),
      link?.language,
      languageFromHeader(request.headers['accept-language']),
    );
    const texts = CATALOGS[language].portal;
    const [title, body] =
      ended === 'DELETED'
        ? [t(language, 'share.deletedTitle'), t(language, 'share.deletedBody')]
        : ended
          ? [t(language, 'share.expiredTitle'), t(language, 'share.expiredBody')]
          : [texts.notFoundTitle, texts.notFoundBody];
    return page(
      reply,
      info.status,
      documentOf({
        language,
        title,
        assets,
        texts,
        body: renderShareEnd(title, body),
      }),
      PORTAL_CSP,
    );
  }
  if (info.status !== 200) throw new Error(`GET ${base} answered ${info.status} to the share page`);
  const signIn = info.json<ReturnType<typeof signInInfo>>();
  if (signIn.sign_in.steps.length === 0 && !sessionToken(request, SHARE_SIGN_IN)) {
    const session = await callRecipientApi(scope, request, { method: 'POST', path: `${base}/session`, payload: {} });
    if (session.status === 200 && session.setCookie) {
      reply.header('set-cookie', session.setCookie);
      request.headers.cookie = (Array.isArray(session.setCookie) ? session.setCookie : [session.setCookie])
        .map((c) => c.split(';')[0])
        .join('; ');
    }
  }
  const view = sessionToken(request, SHARE_SIGN_IN)
    ? await callRecipientApi(scope, request, { method: 'GET', path: `${base}/share` })
    : null;
  const language = resolveLanguage(chosenLanguage(request), signIn.share.language);
  const texts = { ...CATALOGS[language].portal, signInTitle: t(language, 'share.signInTitle') };
  const csp = brandStyle(signIn.branding)?.csp ?? PORTAL_CSP;
  const options = { token, language, texts, assets, pagePath: `/s/${token}` };
  const html =
    view?.status === 200
      ? renderShare(options, view.json<ShareView>())
      : renderShareSignIn(options, signIn, base, scope.contexts.settings.maxUploadBytes);
  return page(reply, 200, html, csp);
}

export async function shareRoutes(scope: FastifyInstance): Promise<void> {
  await scope.register(
    linkSignInRoutes<ShareLink>({
      prefix: '/s',
      tags,
      find: findShareLink,
      info: { schema: ShareSignInBody, of: signInInfo },
    }),
  );
  await scope.register(sessionRoutes);
  scope.get<{ Params: { token: string }; Querystring: LanguageQuery }>(
    '/s/:token',
    { config: { public: true } },
    (request, reply) => servePage(scope, request, reply),
  );
}
