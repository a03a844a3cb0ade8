import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/errors/app-error';
import { isOwnOrigin, replyCrossSite, SAME_ORIGIN_REFERRER, sameOriginOrSafe } from '../../kernel/http/auth';
import { readCookie, SESSION_COOKIE, sessionCookie, USER_SESSION_PREFIX } from '../../kernel/http/cookies';
import { parseJsonBody } from '../../kernel/http/errors';
import { MAX_EMAIL } from '../../kernel/limits';
import { Body, DateTime, DetailBody, NoContent, Nullable, Text, withErrors } from '../../kernel/rest/schemas';
import type { UserRow } from '../identity/identity.entities';
import { portalAssets } from '../portal/portal.assets';
import { PORTAL_CSP } from '../portal/portal.page';
import { clientOf } from '../portal/portal.routes';
import { renderSignInFailure, renderSignInPage, renderVerifyPage, type PageNote } from './session.page';
import {
  consolePath,
  DEFAULT_NEXT,
  describeSession,
  findUserSession,
  requestSignInLink,
  signOut,
  verifySignInLink,
  type SignInDeps,
} from './session.service';

// The sign-in API (`/auth/…`, JSON, and form posts from the pages) and its pages (`/sign-in`, `/sign-in/verify`).
// None takes an API key: the link's token, then the session cookie, are the credentials. A form post is answered
// with the next page (303 to the console once signed in), JSON with JSON.

const tags = ['Sign-in'];

const SENT = 'If the address belongs to a user, a sign-in link is on its way';

const UserBody = Type.Object({
  id: Type.String(),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  role: Type.String(),
});

const restUser = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  first_name: user.firstName ?? null,
  last_name: user.lastName ?? null,
  role: user.role,
});

/** A 303 to the next page, for a form post. */
const SeeOther = Type.Null({ description: 'a form post from the sign-in pages: `Location` is the next page' });

/** Requests whose body came as a form's fields (the pages' posts), answered with pages. */
const forms = new WeakSet<FastifyRequest>();
const isForm = (request: FastifyRequest) => forms.has(request);

/**
 * A browser's post from another site's page, refused: sign-in calls carry no session yet, but a page elsewhere must
 * not sign its visitor in (to an account of the page's choosing) nor spend its limits. Without `Origin` (a script,
 * curl) the call goes on.
 */
const foreignOrigin = (request: FastifyRequest, publicUrl: string) =>
  request.headers.origin !== undefined &&
  !isOwnOrigin(request.headers.origin, { publicUrl, protocol: request.protocol, host: request.host });

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PORTAL_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', SAME_ORIGIN_REFERRER)
    .send(body);

/** A refusal of a form post as the page it comes from says it, or undefined for what is no refusal (a bug). */
function formRefusal(err: unknown): { status: number; text: string; retryAfter?: number } | undefined {
  if (!(err instanceof AppError)) return undefined;
  if (err.code === 'RATE_LIMITED')
    return {
      status: 429,
      text: `Too many attempts. Try again in ${Math.ceil((err.retryAfterSeconds ?? 60) / 60)} minutes.`,
      retryAfter: err.retryAfterSeconds,
    };
  if (err.code === 'VALIDATION') return { status: 422, text: err.userErrors.map((e) => e.message).join('. ') };
  if (err.code === 'UNAUTHENTICATED') return { status: 401, text: err.message };
  return undefined;
}

export async function sessionRoutes(scope: FastifyInstance): Promise<void> {
  const settings = scope.contexts.settings;
  const deps: SignInDeps = { db: scope.db, settings, counters: scope.edgeStore };
  const open = { public: true };
  // The pages' forms post `application/x-www-form-urlencoded`; the JSON API takes JSON, under that type too (as
  // `curl -d` labels it), as every other path does.
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (/^\s*[{[]/.test(text)) {
      try {
        return done(null, parseJsonBody(text));
      } catch (err) {
        return done(err as Error, undefined);
      }
    }
    forms.add(request);
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
  const cookieOf = (request: FastifyRequest) => readCookie(request.headers, SESSION_COOKIE, USER_SESSION_PREFIX);
  const clearCookie = (reply: FastifyReply) =>
    reply.header('set-cookie', sessionCookie('', { path: '/', maxAgeSeconds: 0, secure: settings.secureCookies }));

  scope.get<{ Querystring: { next?: string; sent?: string } }>('/sign-in', { config: open }, async (request, reply) => {
    const next = consolePath(request.query.next) ?? DEFAULT_NEXT;
    const note: PageNote | undefined = request.query.sent ? { kind: 'sent', text: `${SENT}.` } : undefined;
    return html(reply, 200, renderSignInPage({ next, note, assets: await portalAssets() }));
  });

  scope.get<{ Querystring: { token?: string; next?: string } }>(
    '/sign-in/verify',
    { config: open },
    async (request, reply) => {
      const next = consolePath(request.query.next) ?? DEFAULT_NEXT;
      const assets = await portalAssets();
      const token = request.query.token;
      if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(token))
        return html(
          reply,
          400,
          renderSignInFailure({
            title: 'This sign-in link is incomplete',
            text: 'Open the link from your sign-in mail as it is, or ask for a new one.',
            next,
            assets,
          }),
        );
      // Nothing is spent here: mail scanners open links. The button posts the token.
      return html(reply, 200, renderVerifyPage({ token, next, assets }));
    },
  );

  scope.post<{ Body: { email: string; next?: string | null } }>(
    '/auth/sign-in',
    {
      config: open,
      schema: {
        tags,
        summary: 'Mail a sign-in link to a user (the same answer whether or not the address is a user’s)',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: Body({ email: Text(MAX_EMAIL), next: Nullable(Text(2000)) }, ['email']),
        response: withErrors({ 202: DetailBody, 303: SeeOther }, [403, 422, 429]),
      },
    },
    async (request, reply) => {
      if (foreignOrigin(request, settings.publicUrl)) return replyCrossSite(request, reply);
      const form = isForm(request);
      // A form's empty `next` is no `next`.
      const next = request.body.next || null;
      try {
        await requestSignInLink(deps, { email: request.body.email, next }, clientOf(request));
      } catch (err) {
        const refusal = form ? formRefusal(err) : undefined;
        if (!refusal) throw err;
        if (refusal.retryAfter) reply.header('retry-after', String(refusal.retryAfter));
        const page = renderSignInPage({
          next: consolePath(next) ?? DEFAULT_NEXT,
          email: request.body.email,
          note: { kind: 'error', text: refusal.text },
          assets: await portalAssets(),
        });
        return html(reply, refusal.status, page);
      }
      if (form) {
        const then = consolePath(next);
        return reply.redirect(
          `/sign-in?sent=1${then && then !== DEFAULT_NEXT ? `&next=${encodeURIComponent(then)}` : ''}`,
          303,
        );
      }
      return reply.code(202).send({ detail: SENT });
    },
  );

  scope.post<{ Body: { token: string; next?: string | null } }>(
    '/auth/verify',
    {
      config: open,
      schema: {
        tags,
        summary: 'Sign in with the token of a mailed link: sets the session cookie',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: Body({ token: Text(200), next: Nullable(Text(2000)) }, ['token']),
        response: withErrors(
          { 200: Type.Object({ user: UserBody, expires_at: DateTime() }), 303: SeeOther },
          [401, 403, 422, 429],
        ),
      },
    },
    async (request, reply) => {
      if (foreignOrigin(request, settings.publicUrl)) return replyCrossSite(request, reply);
      const form = isForm(request);
      const next = consolePath(request.body.next) ?? DEFAULT_NEXT;
      let grant: Awaited<ReturnType<typeof verifySignInLink>>;
      try {
        grant = await verifySignInLink(deps, request.body.token, clientOf(request));
      } catch (err) {
        const refusal = form ? formRefusal(err) : undefined;
        if (!refusal) throw err;
        if (refusal.retryAfter) reply.header('retry-after', String(refusal.retryAfter));
        const title = refusal.status === 429 ? 'Too many attempts' : 'This sign-in link does not work';
        return html(
          reply,
          refusal.status,
          renderSignInFailure({ title, text: refusal.text, next, assets: await portalAssets() }),
        );
      }
      reply.header(
        'set-cookie',
        sessionCookie(grant.token, { path: '/', maxAgeSeconds: grant.maxAgeSeconds, secure: settings.secureCookies }),
      );
      if (form) return reply.redirect(next, 303);
      return { user: restUser(grant.user), expires_at: grant.expiresAt.toISOString() };
    },
  );

  scope.get(
    '/auth/session',
    {
      config: { ...open, openapi: { session: true } },
      schema: {
        tags,
        summary: 'The signed-in user, its organization, and when the session ends unless used',
        response: withErrors(
          {
            200: Type.Object({
              user: UserBody,
              organization: Type.Object({ id: Type.String(), name: Type.String() }),
              expires_at: DateTime(),
            }),
          },
          [401],
        ),
      },
    },
    async (request, reply) => {
      const token = cookieOf(request);
      const session = token ? await findUserSession(scope.db, token, settings.clock.now()) : null;
      if (!session) return reply.code(401).send({ detail: 'Not signed in' });
      const { user, organization, expiresAt } = await describeSession(scope.db, session);
      return { user: restUser(user), organization, expires_at: expiresAt.toISOString() };
    },
  );

  scope.post<{ Body: { everywhere?: boolean | null } | null }>(
    '/auth/sign-out',
    {
      config: { ...open, openapi: { session: true } },
      schema: {
        tags,
        summary: 'Sign out: this session, or with `everywhere` every session of the user; clears the cookie',
        body: Nullable(Body({ everywhere: Nullable(Type.Boolean()) })),
        response: withErrors({ 204: NoContent }, [403, 422]),
      },
    },
    async (request, reply) => {
      const token = cookieOf(request);
      if (token && !sameOriginOrSafe(request, settings.publicUrl)) return replyCrossSite(request, reply);
      if (token) await signOut(scope.db, token, request.body?.everywhere === true);
      clearCookie(reply);
      return reply.code(204).send();
    },
  );
}
