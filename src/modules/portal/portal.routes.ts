import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Reader } from '../../kernel/db/db';
import { AppError } from '../../kernel/errors/app-error';
import {
  RecipientAnswerDocument,
  RecipientDocumentDeleteDocument,
  RecipientFormFillDocument,
  RecipientNotApplicableDocument,
  RecipientRequestViewDocument,
  RecipientSignDocument,
  RecipientSubmitDocument,
} from '../../generated/operations';
import { readCookie, SESSION_COOKIE, sessionCookie } from '../../kernel/http/cookies';
import { receiveFile, sendFile } from '../../kernel/http/files';
import { fromPayload, registerRestRows, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import { Body, DateTime, NoContent, Nullable, Text, Uuid, withErrors } from '../../kernel/rest/schemas';
import { MAX_ANSWER } from '../items/item.limits';
import { MAX_FORM_FIELD_NAME, MAX_FORM_FIELDS, MAX_FORM_VALUE } from '../forms/form.limits';
import { openFile } from '../files/file.service';
import { BrandingBody, restBranding } from '../organizations/organization.rest-shapes';
import { brandingView } from '../organizations/organization.service';
import { languageToRest } from '../requests/request.rest-shapes';
import {
  findLink,
  findSession,
  markOpened,
  recipientViewer,
  requireLinkOpen,
  sendCode,
  signIn,
  signInSteps,
  codeDestination,
  maskAddress,
  type Client,
  REQUEST_SIGN_IN,
  type PortalLink,
  type SignInKind,
  type SignInLink,
} from './portal.access';
import { MAX_SUBMISSION_COMMENT } from './portal.limits';
import { RecipientItemBody, RecipientRequestBody, restRecipientItem, restRecipientRequest } from './portal.rest-shapes';
import { recipientFile, storedFile, storeRecipientDocument } from './portal.service';
import { contractToSign } from './portal.signing';
import { MAX_FIELD_VALUE, MAX_SIGNATURE_PNG_BYTES, MAX_SIGNATURE_TEXT } from '../signing/signing.limits';

// The recipient API under /r/{token}/api (API-DECISIONS "The recipient side"). Sign-in needs only the
// link; everything else a session of the link's recipient, by cookie or Bearer token, and runs the
// recipient GraphQL operations as the REST rows of the owners' API do.

const tags = ['Recipient API'];
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const ItemParams = Type.Object({ token: Type.String({ maxLength: 200 }), item_id: Uuid() });
const FileParams = Type.Object({ token: Type.String({ maxLength: 200 }), file_id: Uuid() });

export const clientOf = (request: FastifyRequest): Client => ({
  ip: request.ip ?? null,
  userAgent: request.headers['user-agent'] ?? null,
});

/**
 * The session token of a request for a kind of link: `Authorization: Bearer`, else its session cookie (the one of
 * the kind's `tokenPrefix`: a signed-in user's cookie reaches the link's paths too).
 */
export function sessionToken(request: FastifyRequest, kind: Pick<SignInKind, 'tokenPrefix'>): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? readCookie(request.headers, SESSION_COOKIE, kind.tokenPrefix);
}

/**
 * A kind of link's sign-in routes (`GET`, `POST code`, `POST session` under `<prefix>/:token/api`):
 * requests' recipients here, shares' recipients in the shares module.
 */
export type LinkApi<L extends SignInLink> = {
  /** `/r` for requests: the link is `<prefix>/{token}`, its API `<prefix>/{token}/api`. */
  prefix: string;
  tags: string[];
  /** The link a token names, or null. */
  find(db: Reader, token: string): Promise<L | null>;
  /** What `GET <prefix>/{token}/api` answers (what signing in needs), and its schema. */
  info: { schema: TSchema; of(link: L, publicUrl: string): unknown };
  /** Called on each `GET` of the sign-in information (a request records its first opening). */
  opened?(db: Reader, link: L, now: Date, client: Client): Promise<void>;
};

/** The link a path names: 404 when it names none. */
export async function requireLinkOf<L extends SignInLink>(
  scope: FastifyInstance,
  api: Pick<LinkApi<L>, 'find'>,
  token: string,
): Promise<L> {
  const link = await api.find(scope.db, token);
  if (!link) throw AppError.notFound('Link');
  return link;
}

const requireLink = (scope: FastifyInstance, token: string): Promise<PortalLink> =>
  requireLinkOf(scope, { find: findLink }, token);

/** Sets `request.viewer` to the recipient whose session the request carries, for this link only. */
async function authenticate(
  scope: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | void> {
  const { token } = request.params as { token: string };
  const link = await requireLink(scope, token);
  const now = scope.contexts.settings.clock.now();
  const credential = sessionToken(request, REQUEST_SIGN_IN);
  const session = credential ? await findSession(scope.db, credential, now) : null;
  if (!session || session.recipientId !== link.recipientId) {
    return reply
      .code(401)
      .header('WWW-Authenticate', 'Bearer')
      .send({ detail: 'Not signed in: sign in at POST /r/{token}/api/session' });
  }
  if (request.method === 'GET') requireLinkOpen(link, now);
  request.viewer = recipientViewer(session, clientOf(request));
}

export const SignInStepsBody = Type.Object({
  steps: Type.Array(Type.String()),
  question_text: Nullable(Type.String()),
  code_destination: Nullable(Type.String()),
});

const SignInBody = Type.Object({
  request: Type.Object({
    name: Type.String(),
    organization_name: Type.String(),
    owner_name: Type.String(),
    due_date: Nullable(Type.String()),
    language: Type.String(),
  }),
  recipient: Type.Object({ first_name: Nullable(Type.String()) }),
  sign_in: SignInStepsBody,
  branding: BrandingBody,
});

/** The steps a link's sign-in shows, its question and where codes go (masked), whatever the link's kind. */
export function signInView(link: SignInLink) {
  const destination = codeDestination(link);
  const steps = signInSteps(link);
  return {
    steps,
    question_text: steps.includes('question') ? link.questionText : null,
    code_destination:
      steps.includes('code') && destination ? maskAddress(destination.channel, destination.address) : null,
  };
}

/** What the sign-in page needs (no session). */
export function signInInfo(link: PortalLink, publicUrl: string) {
  return {
    request: {
      name: link.requestName,
      organization_name: link.organizationName,
      owner_name: link.ownerName,
      due_date: link.dueDate?.toISOString() ?? null,
      language: languageToRest(link.language),
    },
    recipient: { first_name: link.firstName },
    sign_in: signInView(link),
    branding: restBranding(brandingView(publicUrl, link.branding)),
  };
}

/** The three sign-in routes of a kind of link; the session is also set as an `HttpOnly` cookie on the link's path. */
export function linkSignInRoutes<L extends SignInLink>(api: LinkApi<L>) {
  const base = `${api.prefix}/:token/api`;
  const tags = api.tags;
  return async (scope: FastifyInstance): Promise<void> => {
    const settings = scope.contexts.settings;
    scope.get(
      base,
      {
        config: { public: true },
        schema: {
          tags,
          summary: 'What signing in to a link needs',
          params: TokenParams,
          response: withErrors({ 200: api.info.schema }, [404, 410]),
        },
      },
      async (request) => {
        const link = await requireLinkOf(scope, api, (request.params as { token: string }).token);
        const now = settings.clock.now();
        requireLinkOpen(link, now);
        await api.opened?.(scope.db, link, now, clientOf(request));
        return api.info.of(link, settings.publicUrl);
      },
    );
    scope.post(
      `${base}/code`,
      {
        config: { public: true },
        schema: {
          tags,
          summary: "Send a one-time code by the recipient's channel",
          params: TokenParams,
          response: withErrors(
            { 200: Type.Object({ sent_to: Type.String(), expires_at: DateTime() }) },
            [404, 410, 422, 429],
          ),
        },
      },
      async (request) => {
        const link = await requireLinkOf(scope, api, (request.params as { token: string }).token);
        const sent = await sendCode(scope.db, settings, link);
        return { sent_to: sent.sentTo, expires_at: sent.expiresAt.toISOString() };
      },
    );
    scope.post(
      `${base}/session`,
      {
        config: { public: true },
        schema: {
          tags,
          summary: 'Sign in: the answer and the code (or password) the link asks for',
          params: TokenParams,
          body: Nullable(Body({ answer: Nullable(Text(1000)), code: Nullable(Text(100)) })),
          response: withErrors(
            { 200: Type.Object({ session_token: Type.String(), expires_at: DateTime() }) },
            [401, 404, 410, 422, 429],
          ),
        },
      },
      async (request, reply) => {
        const { token } = request.params as { token: string };
        const link = await requireLinkOf(scope, api, token);
        const body = (request.body ?? {}) as { answer?: string | null; code?: string | null };
        const grant = await signIn(scope.db, settings, link, body, clientOf(request));
        reply.header(
          'Set-Cookie',
          sessionCookie(grant.sessionToken, {
            path: `${api.prefix}/${token}`,
            maxAgeSeconds: (grant.expiresAt.getTime() - settings.clock.now().getTime()) / 1000,
            secure: settings.publicUrl.startsWith('https:'),
          }),
        );
        return { session_token: grant.sessionToken, expires_at: grant.expiresAt.toISOString() };
      },
    );
  };
}

const signInRoutes = linkSignInRoutes<PortalLink>({
  prefix: '/r',
  tags,
  find: findLink,
  info: { schema: SignInBody, of: signInInfo },
  opened: markOpened,
});

const requestView = (data: { recipientRequest: Parameters<typeof restRecipientRequest>[0] }) => ({
  body: restRecipientRequest(data.recipientRequest),
});

const sessionRows: RestRow[] = [
  restRow({
    method: 'GET',
    url: '/r/:token/api/request',
    summary: 'The request as the signed-in recipient sees it',
    tags,
    schema: { params: TokenParams, response: withErrors({ 200: RecipientRequestBody }, [401, 404, 410]) },
    operation: RecipientRequestViewDocument,
    variables: () => ({}),
    result: requestView,
  }),
  restRow({
    method: 'POST',
    url: '/r/:token/api/items/:item_id/documents',
    summary: 'Upload a file to an item (multipart, part `file`; one file per call)',
    tags,
    schema: { params: ItemParams, response: withErrors({ 200: RecipientItemBody }, [401, 404, 413, 415, 422]) },
    receive: async (ctx, { params }, request) => {
      const upload = await receiveFile(request, { raw: false, maxBytes: ctx.settings.maxUploadBytes });
      await storeRecipientDocument(ctx, params.item_id, upload);
      return {};
    },
    operation: RecipientRequestViewDocument,
    result: (data, { params }) => {
      const item = data.recipientRequest.items.find((i) => i.id === params.item_id)!;
      return { body: restRecipientItem(item) };
    },
  }),
  restRow({
    method: 'DELETE',
    url: '/r/:token/api/items/:item_id/documents/:document_id',
    summary: 'Delete a document this recipient uploaded, until the submission',
    tags,
    schema: {
      params: Type.Object({ token: Type.String({ maxLength: 200 }), item_id: Uuid(), document_id: Uuid() }),
      response: withErrors({ 204: NoContent }, [401, 404, 422]),
    },
    operation: RecipientDocumentDeleteDocument,
    variables: ({ params }) => ({ input: { documentId: params.document_id, itemId: params.item_id } }),
    result: (data) => noContent(data.recipientDocumentDelete, 'deletedDocumentId'),
  }),
  restRow({
    method: 'PUT',
    url: '/r/:token/api/items/:item_id/answer',
    summary: 'Answer a question item',
    tags,
    schema: {
      params: ItemParams,
      body: Body({ answer: Text(MAX_ANSWER) }, ['answer']),
      response: withErrors({ 200: RecipientItemBody }, [401, 404, 422]),
    },
    operation: RecipientAnswerDocument,
    variables: ({ params, body }) => ({ input: { itemId: params.item_id, answer: body.answer } }),
    result: (data) => ({ body: restRecipientItem(fromPayload(data.recipientAnswer, 'item')) }),
  }),
  restRow({
    method: 'PUT',
    url: '/r/:token/api/items/:item_id/form',
    summary: "Fill in an upload item's form: `{answers: {field: value}}`, replacing earlier answers",
    tags,
    schema: {
      params: ItemParams,
      body: Body(
        {
          answers: Type.Record(
            Type.String({ maxLength: MAX_FORM_FIELD_NAME }),
            Type.String({ maxLength: MAX_FORM_VALUE }),
            { maxProperties: MAX_FORM_FIELDS },
          ),
        },
        ['answers'],
      ),
      response: withErrors({ 200: RecipientItemBody }, [401, 404, 422]),
    },
    operation: RecipientFormFillDocument,
    variables: ({ params, body }) => ({ input: { itemId: params.item_id, answers: body.answers } }),
    result: (data) => ({ body: restRecipientItem(fromPayload(data.recipientFormFill, 'item')) }),
  }),
  restRow({
    method: 'PUT',
    url: '/r/:token/api/items/:item_id/not-applicable',
    summary: 'Mark an optional item not applicable (is_na: true), or applicable again',
    tags,
    schema: {
      params: ItemParams,
      body: Body({ is_na: Type.Boolean() }, ['is_na']),
      response: withErrors({ 200: RecipientItemBody }, [401, 404, 422]),
    },
    operation: RecipientNotApplicableDocument,
    variables: ({ params, body }) => ({ input: { itemId: params.item_id, isNa: body.is_na } }),
    result: (data) => ({ body: restRecipientItem(fromPayload(data.recipientNotApplicable, 'item')) }),
  }),
  {
    method: 'GET',
    url: '/r/:token/api/items/:item_id/contract',
    summary: 'The contract PDF an E_SIGNATURE item asks the recipient to sign (shown inline)',
    tags,
    schema: { params: ItemParams, response: withErrors({}, [401, 404, 410, 422]) },
    handle: async (ctx, { params }, _request, reply) => {
      const file = await contractToSign(ctx, params.item_id);
      return sendFile(reply, {
        stream: await openFile(ctx, file),
        name: file.name,
        size: file.size,
        type: file.mimeType,
        inline: true,
      });
    },
  },
  restRow({
    method: 'POST',
    url: '/r/:token/api/items/:item_id/sign',
    summary: "Sign an E_SIGNATURE item: the contract's fields of this recipient, and a typed or drawn signature",
    tags,
    // A drawn signature travels as base64 (4/3 of its bytes) inside JSON.
    bodyLimit: Math.ceil((MAX_SIGNATURE_PNG_BYTES * 4) / 3) + 256 * 1024,
    schema: {
      params: ItemParams,
      body: Body(
        {
          fields: Nullable(Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: MAX_FIELD_VALUE }))),
          signature: Body(
            {
              type: Type.Union([Type.Literal('TYPED'), Type.Literal('DRAWN')]),
              text: Nullable(Text(MAX_SIGNATURE_TEXT)),
              png_base64: Nullable(Type.String()),
            },
            ['type'],
          ),
        },
        ['signature'],
      ),
      response: withErrors({ 200: RecipientItemBody }, [401, 404, 410, 413, 422]),
    },
    operation: RecipientSignDocument,
    variables: ({ params, body }) => ({
      input: {
        itemId: params.item_id,
        fields: body.fields ?? {},
        signature: { type: body.signature.type, text: body.signature.text, pngBase64: body.signature.png_base64 },
      },
    }),
    result: (data) => ({ body: restRecipientItem(fromPayload(data.recipientSign, 'item')) }),
  }),
  restRow({
    method: 'POST',
    url: '/r/:token/api/submit',
    summary: 'Submit the request to its owner',
    tags,
    schema: {
      params: TokenParams,
      body: Nullable(Body({ comment: Nullable(Text(MAX_SUBMISSION_COMMENT)) })),
      response: withErrors({ 200: RecipientRequestBody }, [401, 404, 422]),
    },
    operation: RecipientSubmitDocument,
    variables: ({ body }) => ({ input: { comment: body?.comment ?? null } }),
    result: (data) => ({ body: restRecipientRequest(fromPayload(data.recipientSubmit, 'request')) }),
  }),
  ...(['attachments', 'documents'] as const).map((kind): RestRow => ({
    method: 'GET',
    url: `/r/:token/api/${kind}/:file_id`,
    summary:
      kind === 'attachments'
        ? "Download one of the owner's attachments"
        : 'Download a document submitted to the request',
    tags,
    schema: { params: FileParams, response: withErrors({}, [401, 404, 410]) },
    handle: async (ctx, { params }, _request, reply) => {
      const { fileId } = await recipientFile(ctx, kind, params.file_id);
      const file = await storedFile(ctx.db, fileId);
      return sendFile(reply, {
        stream: await openFile(ctx, file),
        name: file.name,
        size: file.size,
        type: file.mimeType,
      });
    },
  })),
];

/** The recipient API: its sign-in routes, and its session routes behind the session check. */
export async function portalRoutes(scope: FastifyInstance): Promise<void> {
  await scope.register(signInRoutes);
  await scope.register(async (sessionScope) => {
    sessionScope.addHook('onRequest', (request, reply) => authenticate(sessionScope, request, reply));
    registerRestRows(sessionScope, sessionRows, {
      buildContext: (request) => sessionScope.contexts.forRequest(request),
      recipient: true,
    });
  });
}
