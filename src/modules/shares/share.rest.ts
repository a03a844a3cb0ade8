import { Type } from '@sinclair/typebox';
import {
  ShareCreateDocument,
  ShareDeleteDocument,
  ShareGetDocument,
  ShareListDocument,
  ShareSendDocument,
  ShareUpdateDocument,
} from '../../generated/operations';
import { receiveFile } from '../../kernel/http/files';
import { found, fromPayload, restRow, type RestRow } from '../../kernel/rest/engine';
import { noContent } from '../../kernel/rest/mapping';
import {
  Body,
  DateTime,
  listQuery,
  NoContent,
  Nullable,
  StringEnum,
  Text,
  Uuid,
  withErrors,
} from '../../kernel/rest/schemas';
import { MAX_EMAIL, MAX_PERSON_NAME, MAX_PHONE } from '../../kernel/limits';
import { AUTH_METHODS, SEND_METHODS } from '../recipients/recipient.enums';
import { languageFromRest, LanguageSchema } from '../requests/request.rest-shapes';
import {
  MAX_LISTED_DOWNLOADS,
  MAX_SHARE_MESSAGE,
  MAX_SHARE_QUESTION,
  MAX_SHARE_RECIPIENTS,
  MAX_SHARE_TITLE,
} from './share.limits';
import { restShare, restShareSummary, ShareBody, ShareSummaryBody } from './share.rest-shapes';
import { uploadShareFile } from './share.service';

const tags = ['File sharing'];
const ShareParams = Type.Object({ share_id: Uuid() });

/** The reference's auth type `EMAIL_ACCESS_CODE` is Gather's EMAIL (a one-time code by email). */
const AuthType = StringEnum([...AUTH_METHODS, 'EMAIL_ACCESS_CODE'] as const);

const RecipientBody = Body({
  email: Nullable(Type.String({ maxLength: MAX_EMAIL })),
  firstName: Nullable(Text(MAX_PERSON_NAME)),
  lastName: Nullable(Text(MAX_PERSON_NAME)),
  phone: Nullable(Type.String({ maxLength: MAX_PHONE })),
  authMethod: Nullable(
    Body(
      {
        type: AuthType,
        questionText: Nullable(Text(MAX_SHARE_QUESTION)),
        questionAnswer: Nullable(Text(MAX_SHARE_QUESTION)),
      },
      ['type'],
    ),
  ),
  sendMethod: Nullable(StringEnum(SEND_METHODS)),
  completionOrder: Nullable(Type.Integer({ minimum: 0, maximum: MAX_SHARE_RECIPIENTS })),
});

const CreateBody = Body(
  {
    title: Text(MAX_SHARE_TITLE, { minLength: 1 }),
    recipients: Type.Array(RecipientBody, { minItems: 1, maxItems: MAX_SHARE_RECIPIENTS }),
    customMessage: Nullable(Text(MAX_SHARE_MESSAGE)),
    expirationDate: Nullable(DateTime('when the page stops answering, in the future')),
    deletionDate: Nullable(
      DateTime('when the files are deleted from storage, in the future, not before expirationDate'),
    ),
    sendMethod: Nullable(StringEnum(SEND_METHODS)),
    language: Nullable(LanguageSchema),
  },
  ['title', 'recipients'],
);

const UpdateBody = Body({
  title: Text(MAX_SHARE_TITLE, { minLength: 1 }),
  customMessage: Nullable(Text(MAX_SHARE_MESSAGE)),
  expirationDate: Nullable(DateTime('when the page stops answering, in the future')),
  deletionDate: Nullable(DateTime('when the files are deleted from storage, in the future')),
  language: LanguageSchema,
});

type RecipientJson = {
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  authMethod?: { type: string; questionText?: string | null; questionAnswer?: string | null } | null;
  sendMethod?: (typeof SEND_METHODS)[number] | null;
  completionOrder?: number | null;
};

const recipientInput = (r: RecipientJson) => ({
  email: r.email ?? null,
  firstName: r.firstName ?? null,
  lastName: r.lastName ?? null,
  phone: r.phone ?? null,
  authMethod: r.authMethod
    ? {
        type: (r.authMethod.type === 'EMAIL_ACCESS_CODE'
          ? 'EMAIL'
          : r.authMethod.type) as (typeof AUTH_METHODS)[number],
        questionText: r.authMethod.questionText ?? null,
        questionAnswer: r.authMethod.questionAnswer ?? null,
      }
    : null,
  sendMethod: r.sendMethod ?? null,
  completionOrder: r.completionOrder ?? null,
});

const date = (value: string | null | undefined) => (value === undefined ? undefined : value);

/** A PATCH body's fields as GraphQL input: a field left out stays as it is, null clears it. */
const given = <T extends Record<string, unknown>>(input: T): T =>
  Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as T;

const downloads = MAX_LISTED_DOWNLOADS;

export const shareRestRows: RestRow[] = [
  restRow({
    method: 'POST',
    url: '/shares',
    summary: 'Start sharing files: a share (DRAFT) with its recipients; then upload its files and send it',
    tags,
    schema: { body: CreateBody, response: withErrors({ 200: ShareBody }, [422]) },
    operation: ShareCreateDocument,
    variables: ({ body }) => ({
      downloads,
      input: {
        title: body.title,
        recipients: (body.recipients as RecipientJson[]).map(recipientInput),
        customMessage: body.customMessage ?? null,
        expirationDate: body.expirationDate ?? null,
        deletionDate: body.deletionDate ?? null,
        sendMethod: body.sendMethod ?? null,
        language: body.language ? languageFromRest(body.language) : null,
      },
    }),
    result: (data) => ({ body: restShare(fromPayload(data.shareCreate, 'share')) }),
  }),
  restRow({
    method: 'POST',
    url: '/shares/:share_id/files',
    summary: `Add a file to a share (multipart/form-data, part \`file\`; each file up to MAX_UPLOAD_BYTES, a share's files together up to 1 GiB); answers the share`,
    tags,
    schema: { params: ShareParams, response: withErrors({ 200: ShareBody }, [404, 413, 422]) },
    receive: async (ctx, { params }, request) => {
      await uploadShareFile(
        ctx,
        params.share_id,
        await receiveFile(request, { raw: false, maxBytes: ctx.settings.maxUploadBytes }),
      );
      return { id: params.share_id, downloads };
    },
    operation: ShareGetDocument,
    result: (data) => ({ body: restShare(found(data.share, 'Share')) }),
  }),
  restRow({
    method: 'POST',
    url: '/shares/:share_id/send',
    summary: 'Send a share: every recipient gets its link by mail (or SMS); a share already sent is sent again',
    tags,
    schema: { params: ShareParams, response: withErrors({ 200: ShareBody }) },
    operation: ShareSendDocument,
    variables: ({ params }) => ({ id: params.share_id, downloads }),
    result: (data) => ({ body: restShare(fromPayload(data.shareSend, 'share')) }),
  }),
  restRow({
    method: 'GET',
    url: '/shares',
    summary: 'List the shares you see, newest first',
    tags,
    schema: { querystring: listQuery('desc'), response: withErrors({ 200: Type.Array(ShareSummaryBody) }, [422]) },
    operation: ShareListDocument,
    variables: ({ query }) => ({ first: query.limit }),
    result: (data) => ({ body: data.shares.nodes.map(restShareSummary) }),
  }),
  restRow({
    method: 'GET',
    url: '/shares/:share_id',
    summary: 'Get a share, with its files, recipients and downloads (newest first)',
    tags,
    schema: { params: ShareParams, response: withErrors({ 200: ShareBody }) },
    operation: ShareGetDocument,
    variables: ({ params }) => ({ id: params.share_id, downloads }),
    result: (data) => ({ body: restShare(found(data.share, 'Share')) }),
  }),
  restRow({
    method: 'PATCH',
    url: '/shares/:share_id',
    summary: "Change a share's title, message, dates or language",
    tags,
    schema: { params: ShareParams, body: UpdateBody, response: withErrors({ 200: ShareBody }) },
    operation: ShareUpdateDocument,
    variables: ({ params, body }) => ({
      id: params.share_id,
      downloads,
      input: given({
        title: body?.title,
        customMessage: body?.customMessage,
        expirationDate: date(body?.expirationDate),
        deletionDate: date(body?.deletionDate),
        language: body?.language ? languageFromRest(body.language) : undefined,
      }),
    }),
    result: (data) => ({ body: restShare(fromPayload(data.shareUpdate, 'share')) }),
  }),
  restRow({
    method: 'DELETE',
    url: '/shares/:share_id',
    summary: 'Delete a share, its files and its download log',
    tags,
    schema: { params: ShareParams, response: withErrors({ 204: NoContent }) },
    operation: ShareDeleteDocument,
    variables: ({ params }) => ({ id: params.share_id }),
    result: (data) => noContent(data.shareDelete, 'deletedShareId'),
  }),
];
