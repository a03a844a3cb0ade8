import { directionOf, formatDate } from '../../i18n/format';
import { resolveLanguage, t } from '../../i18n/i18n';
import type { BrandingView } from '../organizations/organization.service';
import type { Language } from '../requests/request.enums';
import type { NotificationKind } from './notification.entities';
import { MAX_SUBJECT_LENGTH } from './notification.limits';

// Every message the service sends, in each language of the Language enum (src/i18n/catalogs).
// A template returns plain-text blocks; `layout` alone makes HTML of them, escaping every character
// of every block, so no interpolated value can reach the HTML unescaped. An organization's branding
// adds its logo, its button colour, its signature and support line.

/** What each kind's template fills in, as queued (stored on the message: never a secret). */
export type TemplateParams = {
  INVITATION: {
    requestName: string;
    senderName: string;
    organizationName: string;
    recipientFirstName?: string | null;
    personalMessage?: string | null;
    dueDate?: string | null;
  };
  ONE_TIME_CODE: { requestName: string; validMinutes: number };
  CHANGES_REQUESTED: {
    requestName: string;
    senderName: string;
    recipientFirstName?: string | null;
    message?: string | null;
    itemNames?: string[];
  };
  REQUEST_SUBMITTED: { requestName: string; recipientName: string; requestId: string };
  REQUEST_COMPLETED: { requestName: string; recipientName: string; requestId: string };
  REMINDER: {
    requestName: string;
    senderName: string;
    recipientFirstName?: string | null;
    message?: string | null;
    dueDate?: string | null;
  };
  EXPIRATION_WARNING: {
    requestName: string;
    senderName: string;
    recipientFirstName?: string | null;
    expiresAt: string;
  };
  ESCALATION: {
    requestName: string;
    requestId: string;
    condition: 'OVERDUE' | 'NOT_OPENED';
    afterDays: number;
    dueDate?: string | null;
    recipientNames: string[];
  };
  SHARE_INVITATION: {
    shareTitle: string;
    senderName: string;
    organizationName: string;
    recipientFirstName?: string | null;
    message?: string | null;
    fileCount: number;
    expiresAt?: string | null;
  };
  /** A user's link to sign in to Gather in a browser (the sessions module). */
  SIGN_IN_LINK: { firstName?: string | null; validMinutes: number };
};

/** What each kind needs at send time and is not stored in the clear (sealed until sent, masked in the stored body). */
export type TemplateSecrets = {
  ONE_TIME_CODE: { code: string };
  SHARE_INVITATION: { link: string };
  SIGN_IN_LINK: { link: string };
} & Record<Exclude<NotificationKind, 'ONE_TIME_CODE' | 'SHARE_INVITATION' | 'SIGN_IN_LINK'>, Record<string, never>>;

/**
 * Kinds whose copy kept in the table holds its secrets when nothing carries it (no SMTP_URL): the table is then the
 * only place it reaches, and a user on a fresh machine signs in with the link kept there. Sent, it is masked as any.
 */
export const KINDS_KEPT_WHOLE: ReadonlySet<NotificationKind> = new Set(['SIGN_IN_LINK']);

/** Which kinds carry the recipient's link (computed at send time from its nonce). */
export const KINDS_WITH_LINK: ReadonlySet<NotificationKind> = new Set([
  'INVITATION',
  'CHANGES_REQUESTED',
  'REMINDER',
  'EXPIRATION_WARNING',
]);

type Block =
  | { type: 'paragraph' | 'quote' | 'code' | 'list'; text: string | string[] }
  | { type: 'action'; label: string; url: string };

type Message = { subject: string; blocks: Block[]; sms: string };

type Input<K extends NotificationKind> = {
  params: TemplateParams[K];
  secrets: TemplateSecrets[K];
  link: string | null;
  language: Language;
};

const p = (text: string): Block => ({ type: 'paragraph', text });

// Mail dates are days (a due date, an expiry): read in UTC, as they were set.
const day = (iso: string, language: Language) => formatDate(iso, language, { timeZone: 'UTC' });

const greeting = (language: Language, name: string | null | undefined) =>
  name ? t(language, 'mail.greeting', { name }) : t(language, 'mail.greetingNoName');

const quote = (text: string | null | undefined): Block[] => (text ? [{ type: 'quote', text }] : []);

const TEMPLATES: { [K in NotificationKind]: (input: Input<K>) => Message } = {
  INVITATION: ({ params, link, language }) => {
    const names = { sender: params.senderName, request: params.requestName };
    return {
      subject: t(language, 'mail.invitationSubject', names),
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(t(language, 'mail.invitationBody', { ...names, organization: params.organizationName })),
        ...quote(params.personalMessage),
        ...(params.dueDate ? [p(t(language, 'mail.due', { date: day(params.dueDate, language) }))] : []),
        { type: 'action', label: t(language, 'mail.openRequest'), url: link! },
        p(t(language, 'mail.linkIsYours')),
      ],
      sms: t(language, 'mail.invitationSms', { ...names, link: link! }),
    };
  },
  ONE_TIME_CODE: ({ params, secrets, language }) => ({
    subject: t(language, 'mail.codeSubject', { request: params.requestName }),
    blocks: [
      p(t(language, 'mail.codeBody', { request: params.requestName })),
      { type: 'code', text: secrets.code },
      p(t(language, 'mail.codeValid', { minutes: params.validMinutes })),
    ],
    sms: t(language, 'mail.codeSms', { request: params.requestName, code: secrets.code, minutes: params.validMinutes }),
  }),
  CHANGES_REQUESTED: ({ params, link, language }) => ({
    subject: t(language, 'mail.changesSubject', { request: params.requestName }),
    blocks: [
      p(greeting(language, params.recipientFirstName)),
      p(t(language, 'mail.changesBody', { sender: params.senderName, request: params.requestName })),
      ...quote(params.message),
      ...(params.itemNames?.length
        ? [p(t(language, 'mail.changesItems')), { type: 'list', text: params.itemNames } as Block]
        : []),
      { type: 'action', label: t(language, 'mail.openRequest'), url: link! },
    ],
    sms: t(language, 'mail.changesSms', { request: params.requestName, link: link! }),
  }),
  REQUEST_SUBMITTED: ({ params, language }) => {
    const names = { recipient: params.recipientName, request: params.requestName };
    return {
      subject: t(language, 'mail.submittedSubject', names),
      blocks: [
        p(t(language, 'mail.submittedBody', names)),
        p(t(language, 'mail.submittedReview', { id: params.requestId })),
      ],
      sms: t(language, 'mail.submittedSms', names),
    };
  },
  REQUEST_COMPLETED: ({ params, language }) => {
    const names = { recipient: params.recipientName, request: params.requestName };
    return {
      subject: t(language, 'mail.completedSubject', names),
      blocks: [
        p(t(language, 'mail.completedBody', names)),
        p(t(language, 'mail.completedVerify', { id: params.requestId })),
      ],
      sms: t(language, 'mail.completedSms', names),
    };
  },
  REMINDER: ({ params, link, language }) => ({
    subject: t(language, 'mail.reminderSubject', { request: params.requestName }),
    blocks: [
      p(greeting(language, params.recipientFirstName)),
      p(t(language, 'mail.reminderBody', { sender: params.senderName, request: params.requestName })),
      ...quote(params.message),
      ...(params.dueDate ? [p(t(language, 'mail.due', { date: day(params.dueDate, language) }))] : []),
      { type: 'action', label: t(language, 'mail.openRequest'), url: link! },
    ],
    sms: t(language, 'mail.reminderSms', { sender: params.senderName, request: params.requestName, link: link! }),
  }),
  EXPIRATION_WARNING: ({ params, link, language }) => {
    const values = { request: params.requestName, date: day(params.expiresAt, language) };
    return {
      subject: t(language, 'mail.expirationSubject', values),
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(t(language, 'mail.expirationBody', { ...values, sender: params.senderName })),
        { type: 'action', label: t(language, 'mail.openRequest'), url: link! },
      ],
      sms: t(language, 'mail.expirationSms', { ...values, link: link! }),
    };
  },
  // A share's link travels as a secret: the stored copy of the message does not hold it.
  SHARE_INVITATION: ({ params, secrets, language }) => {
    const names = { sender: params.senderName, title: params.shareTitle };
    return {
      subject: t(language, 'mail.shareSubject', names),
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(t(language, 'mail.shareBody', { ...names, organization: params.organizationName, count: params.fileCount })),
        ...quote(params.message),
        ...(params.expiresAt ? [p(t(language, 'mail.shareAvailable', { date: day(params.expiresAt, language) }))] : []),
        { type: 'action', label: t(language, 'mail.shareOpen'), url: secrets.link },
        p(t(language, 'mail.linkIsYours')),
      ],
      sms: t(language, 'mail.shareSms', { ...names, link: secrets.link }),
    };
  },
  SIGN_IN_LINK: ({ params, secrets, language }) => ({
    subject: t(language, 'mail.signInSubject'),
    blocks: [
      p(greeting(language, params.firstName)),
      p(t(language, 'mail.signInBody', { minutes: params.validMinutes })),
      { type: 'action', label: t(language, 'mail.signInAction'), url: secrets.link },
      p(t(language, 'mail.signInIgnore')),
    ],
    sms: t(language, 'mail.signInSms', { link: secrets.link }),
  }),
  ESCALATION: ({ params, language }) => {
    const values = { request: params.requestName, days: params.afterDays };
    const overdue = params.condition === 'OVERDUE';
    return {
      subject: t(language, 'mail.escalationSubject', values),
      blocks: [
        p(t(language, overdue ? 'mail.escalationOverdue' : 'mail.escalationNotOpened', values)),
        ...(params.recipientNames.length
          ? [p(t(language, 'mail.escalationWaiting')), { type: 'list', text: params.recipientNames } as Block]
          : []),
        p(t(language, 'mail.escalationRequest', { id: params.requestId })),
      ],
      sms: t(language, overdue ? 'mail.escalationSmsOverdue' : 'mail.escalationSmsNotOpened', values),
    };
  },
};

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

const textOf = (block: Block): string => {
  switch (block.type) {
    case 'action':
      return `${block.label}: ${block.url}`;
    case 'quote':
      return (block.text as string)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'list':
      return (block.text as string[]).map((line) => `- ${line}`).join('\n');
    default:
      return block.text as string;
  }
};

// The button's colour: the organization's when it set one (checked as #RRGGBB when saved).
const buttonColor = (branding: BrandingView | null | undefined) =>
  branding?.primaryColor && /^#[0-9a-f]{6}$/i.test(branding.primaryColor) ? branding.primaryColor : '#1f4fd1';

// Mail clients know few logical CSS properties: the quote's rule goes on the side the text starts from.
const htmlOf = (block: Block, branding: BrandingView | null | undefined, start: 'left' | 'right'): string => {
  switch (block.type) {
    case 'action':
      return `<p><a href="${escapeHtml(block.url)}" style="display:inline-block;padding:10px 18px;background:${buttonColor(branding)};color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(block.label)}</a></p>\n<p style="font-size:12px;color:#555555">${escapeHtml(block.url)}</p>`;
    case 'quote':
      return `<blockquote style="margin:0 0 16px;padding-${start}:12px;border-${start}:3px solid #cccccc;white-space:pre-line">${escapeHtml(block.text as string)}</blockquote>`;
    case 'code':
      return `<p style="font-size:24px;letter-spacing:4px;font-family:monospace">${escapeHtml(block.text as string)}</p>`;
    case 'list':
      return `<ul>${(block.text as string[]).map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`;
    default:
      return `<p>${escapeHtml(block.text as string)}</p>`;
  }
};

export type RenderedMessage = { subject: string; text: string; html: string; sms: string };

const cut = (subject: string) => {
  const line = subject.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUBJECT_LENGTH ? `${line.slice(0, MAX_SUBJECT_LENGTH - 1)}…` : line;
};

/** The organization's signature and support line, closing every message it brands. */
function brandBlocks(branding: BrandingView | null | undefined, language: Language): Block[] {
  return [
    ...(branding?.senderName ? [p(`— ${branding.senderName}`)] : []),
    ...(branding?.supportEmail ? [p(t(language, 'mail.support', { email: branding.supportEmail }))] : []),
  ];
}

export function renderNotification<K extends NotificationKind>(
  kind: K,
  language: Language | string,
  values: {
    params: TemplateParams[K];
    secrets: TemplateSecrets[K];
    link: string | null;
    branding?: BrandingView | null;
  },
): RenderedMessage {
  if (KINDS_WITH_LINK.has(kind) && !values.link) throw new Error(`a ${kind} message needs the recipient's link`);
  const lang = resolveLanguage(language);
  const dir = directionOf(lang);
  const message = (TEMPLATES[kind] as (input: Input<K>) => Message)({ ...values, language: lang });
  const subject = cut(message.subject);
  const { branding } = values;
  const blocks = [...message.blocks, ...brandBlocks(branding, lang)];
  const logo = branding?.logoUrl
    ? `<p><img src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(branding.senderName ?? '')}" style="max-height:48px;max-width:200px"></p>\n`
    : '';
  return {
    subject,
    text: `${blocks.map(textOf).join('\n\n')}\n`,
    html: `<!doctype html>\n<html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>\n<body dir="${dir}" style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222222;max-width:600px;margin:0 auto;padding:16px">\n${logo}${blocks.map((block) => htmlOf(block, branding, dir === 'rtl' ? 'right' : 'left')).join('\n')}\n</body></html>\n`,
    sms: message.sms,
  };
}

/** The value a stored message shows in place of a secret (a one-time code). */
export const MASKED = '••••••';

/** The secrets of a kind, each replaced by `MASKED`: what the stored copy is rendered with. */
export const maskSecrets = <S extends Record<string, string>>(secrets: S): S =>
  Object.fromEntries(Object.keys(secrets).map((key) => [key, MASKED])) as S;
