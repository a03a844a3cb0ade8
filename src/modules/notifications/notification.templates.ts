import type { BrandingView } from '../organizations/organization.service';
import type { Language } from '../requests/request.enums';
import type { NotificationKind } from './notification.entities';
import { MAX_SUBJECT_LENGTH } from './notification.limits';

// Every message the service sends, in English and Spanish (other languages fall back to English).
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
  language: TemplateLanguage;
};

type TemplateLanguage = 'en' | 'es';

const p = (text: string): Block => ({ type: 'paragraph', text });

const formatDate = (iso: string, language: TemplateLanguage) =>
  new Intl.DateTimeFormat(language === 'es' ? 'es' : 'en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(iso),
  );

const greeting = (language: TemplateLanguage, name: string | null | undefined) =>
  language === 'es' ? (name ? `Hola, ${name}:` : 'Hola:') : name ? `Hello ${name},` : 'Hello,';

const TEMPLATES: { [K in NotificationKind]: (input: Input<K>) => Message } = {
  INVITATION: ({ params, link, language }) => {
    const es = language === 'es';
    const due = params.dueDate ? formatDate(params.dueDate, language) : null;
    return {
      subject: es
        ? `${params.senderName} le pide documentos: ${params.requestName}`
        : `${params.senderName} requests documents: ${params.requestName}`,
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(
          es
            ? `${params.senderName} (${params.organizationName}) le pide que complete «${params.requestName}».`
            : `${params.senderName} (${params.organizationName}) asks you to complete "${params.requestName}".`,
        ),
        ...(params.personalMessage ? [{ type: 'quote', text: params.personalMessage } as Block] : []),
        ...(due ? [p(es ? `Fecha límite: ${due}.` : `Due: ${due}.`)] : []),
        { type: 'action', label: es ? 'Abrir la solicitud' : 'Open the request', url: link! },
        p(es ? 'El enlace es personal: no lo reenvíe.' : 'This link is yours alone: please do not forward it.'),
      ],
      sms: es
        ? `${params.senderName} le pide documentos (${params.requestName}): ${link}`
        : `${params.senderName} requests documents (${params.requestName}): ${link}`,
    };
  },
  ONE_TIME_CODE: ({ params, secrets, language }) => {
    const es = language === 'es';
    return {
      subject: es ? `Su código para ${params.requestName}` : `Your code for ${params.requestName}`,
      blocks: [
        p(
          es
            ? `Su código de acceso para «${params.requestName}» es:`
            : `Your sign-in code for "${params.requestName}" is:`,
        ),
        { type: 'code', text: secrets.code },
        p(
          es
            ? `Vale ${params.validMinutes} minutos. Si no lo pidió, ignore este mensaje.`
            : `It is valid for ${params.validMinutes} minutes. If you did not ask for it, ignore this message.`,
        ),
      ],
      sms: es
        ? `Su código para ${params.requestName}: ${secrets.code} (vale ${params.validMinutes} min)`
        : `Your code for ${params.requestName}: ${secrets.code} (valid ${params.validMinutes} min)`,
    };
  },
  CHANGES_REQUESTED: ({ params, link, language }) => {
    const es = language === 'es';
    return {
      subject: es ? `Se piden cambios: ${params.requestName}` : `Changes requested: ${params.requestName}`,
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(
          es
            ? `${params.senderName} pide cambios en «${params.requestName}».`
            : `${params.senderName} asks for changes to "${params.requestName}".`,
        ),
        ...(params.message ? [{ type: 'quote', text: params.message } as Block] : []),
        ...(params.itemNames?.length
          ? [p(es ? 'Elementos por rehacer:' : 'Items to redo:'), { type: 'list', text: params.itemNames } as Block]
          : []),
        { type: 'action', label: es ? 'Abrir la solicitud' : 'Open the request', url: link! },
      ],
      sms: es
        ? `Se piden cambios en ${params.requestName}: ${link}`
        : `Changes requested on ${params.requestName}: ${link}`,
    };
  },
  REQUEST_SUBMITTED: ({ params, language }) => {
    const es = language === 'es';
    return {
      subject: es ? `Enviada: ${params.requestName}` : `Submitted: ${params.requestName}`,
      blocks: [
        p(
          es
            ? `${params.recipientName} envió «${params.requestName}».`
            : `${params.recipientName} submitted "${params.requestName}".`,
        ),
        p(
          es
            ? `Solicitud ${params.requestId}: revísela cuando pueda.`
            : `Request ${params.requestId} is ready for your review.`,
        ),
      ],
      sms: es
        ? `${params.recipientName} envió ${params.requestName}`
        : `${params.recipientName} submitted ${params.requestName}`,
    };
  },
  REQUEST_COMPLETED: ({ params, language }) => {
    const es = language === 'es';
    return {
      subject: es ? `Completa: ${params.requestName}` : `Completed: ${params.requestName}`,
      blocks: [
        p(
          es
            ? `${params.recipientName} completó todos los elementos de «${params.requestName}».`
            : `${params.recipientName} completed every item of "${params.requestName}".`,
        ),
        p(
          es
            ? `Solicitud ${params.requestId}: lista para verificar.`
            : `Request ${params.requestId} is ready to verify.`,
        ),
      ],
      sms: es
        ? `${params.recipientName} completó ${params.requestName}`
        : `${params.recipientName} completed ${params.requestName}`,
    };
  },
  REMINDER: ({ params, link, language }) => {
    const es = language === 'es';
    const due = params.dueDate ? formatDate(params.dueDate, language) : null;
    return {
      subject: es ? `Recordatorio: ${params.requestName}` : `Reminder: ${params.requestName}`,
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(
          es
            ? `${params.senderName} le recuerda que «${params.requestName}» sigue pendiente.`
            : `${params.senderName} reminds you that "${params.requestName}" is still waiting for you.`,
        ),
        ...(params.message ? [{ type: 'quote', text: params.message } as Block] : []),
        ...(due ? [p(es ? `Fecha límite: ${due}.` : `Due: ${due}.`)] : []),
        { type: 'action', label: es ? 'Abrir la solicitud' : 'Open the request', url: link! },
      ],
      sms: es
        ? `Recordatorio de ${params.senderName} (${params.requestName}): ${link}`
        : `Reminder from ${params.senderName} (${params.requestName}): ${link}`,
    };
  },
  EXPIRATION_WARNING: ({ params, link, language }) => {
    const es = language === 'es';
    const expires = formatDate(params.expiresAt, language);
    return {
      subject: es ? `Vence el ${expires}: ${params.requestName}` : `Expires on ${expires}: ${params.requestName}`,
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(
          es
            ? `«${params.requestName}», de ${params.senderName}, vence el ${expires}. Después, el enlace deja de funcionar y lo enviado se borra.`
            : `"${params.requestName}" from ${params.senderName} expires on ${expires}. After that the link stops working and what was sent is deleted.`,
        ),
        { type: 'action', label: es ? 'Abrir la solicitud' : 'Open the request', url: link! },
      ],
      sms: es
        ? `${params.requestName} vence el ${expires}: ${link}`
        : `${params.requestName} expires on ${expires}: ${link}`,
    };
  },
  // A share's link travels as a secret: the stored copy of the message does not hold it.
  SHARE_INVITATION: ({ params, secrets, language }) => {
    const es = language === 'es';
    const expires = params.expiresAt ? formatDate(params.expiresAt, language) : null;
    const files = es
      ? params.fileCount === 1
        ? '1 archivo'
        : `${params.fileCount} archivos`
      : params.fileCount === 1
        ? '1 file'
        : `${params.fileCount} files`;
    return {
      subject: es
        ? `${params.senderName} comparte archivos con usted: ${params.shareTitle}`
        : `${params.senderName} shared files with you: ${params.shareTitle}`,
      blocks: [
        p(greeting(language, params.recipientFirstName)),
        p(
          es
            ? `${params.senderName} (${params.organizationName}) comparte ${files} con usted: «${params.shareTitle}».`
            : `${params.senderName} (${params.organizationName}) shared ${files} with you: "${params.shareTitle}".`,
        ),
        ...(params.message ? [{ type: 'quote', text: params.message } as Block] : []),
        ...(expires ? [p(es ? `Disponibles hasta el ${expires}.` : `Available until ${expires}.`)] : []),
        { type: 'action', label: es ? 'Ver los archivos' : 'View the files', url: secrets.link },
        p(es ? 'El enlace es personal: no lo reenvíe.' : 'This link is yours alone: please do not forward it.'),
      ],
      sms: es
        ? `${params.senderName} comparte archivos con usted (${params.shareTitle}): ${secrets.link}`
        : `${params.senderName} shared files with you (${params.shareTitle}): ${secrets.link}`,
    };
  },
  SIGN_IN_LINK: ({ params, secrets, language }) => {
    const es = language === 'es';
    return {
      subject: es ? 'Su enlace para entrar en Gather' : 'Your link to sign in to Gather',
      blocks: [
        p(greeting(language, params.firstName)),
        p(
          es
            ? `Use este enlace para entrar en Gather. Vale ${params.validMinutes} minutos y una sola vez.`
            : `Use this link to sign in to Gather. It works once, within ${params.validMinutes} minutes.`,
        ),
        { type: 'action', label: es ? 'Entrar' : 'Sign in', url: secrets.link },
        p(
          es
            ? 'Si no lo pidió, ignore este mensaje: nadie entra sin el enlace.'
            : 'If you did not ask for it, ignore this message: nobody signs in without the link.',
        ),
      ],
      sms: es ? `Su enlace para entrar en Gather: ${secrets.link}` : `Your link to sign in to Gather: ${secrets.link}`,
    };
  },
  ESCALATION: ({ params, language }) => {
    const es = language === 'es';
    const what =
      params.condition === 'OVERDUE'
        ? es
          ? `lleva ${params.afterDays} días vencida sin enviarse`
          : `is ${params.afterDays} days overdue and not submitted`
        : es
          ? `lleva ${params.afterDays} días sin que se abra el enlace`
          : `has not been opened ${params.afterDays} days after it was sent`;
    return {
      subject: es ? `Escalado: ${params.requestName}` : `Escalation: ${params.requestName}`,
      blocks: [
        p(es ? `La solicitud «${params.requestName}» ${what}.` : `The request "${params.requestName}" ${what}.`),
        ...(params.recipientNames.length
          ? [
              p(es ? 'Destinatarios pendientes:' : 'Waiting for:'),
              { type: 'list', text: params.recipientNames } as Block,
            ]
          : []),
        p(es ? `Solicitud ${params.requestId}.` : `Request ${params.requestId}.`),
      ],
      sms: es ? `Escalado: ${params.requestName} ${what}` : `Escalation: ${params.requestName} ${what}`,
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

const htmlOf = (block: Block, branding: BrandingView | null | undefined): string => {
  switch (block.type) {
    case 'action':
      return `<p><a href="${escapeHtml(block.url)}" style="display:inline-block;padding:10px 18px;background:${buttonColor(branding)};color:#ffffff;text-decoration:none;border-radius:4px">${escapeHtml(block.label)}</a></p>\n<p style="font-size:12px;color:#555555">${escapeHtml(block.url)}</p>`;
    case 'quote':
      return `<blockquote style="margin:0 0 16px;padding-left:12px;border-left:3px solid #cccccc;white-space:pre-line">${escapeHtml(block.text as string)}</blockquote>`;
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

/** The request's language when a template speaks it, else English. */
export const templateLanguage = (language: Language | string): TemplateLanguage => (language === 'es' ? 'es' : 'en');

/** The organization's signature and support line, closing every message it brands. */
function brandBlocks(branding: BrandingView | null | undefined, language: TemplateLanguage): Block[] {
  const es = language === 'es';
  return [
    ...(branding?.senderName ? [p(`— ${branding.senderName}`)] : []),
    ...(branding?.supportEmail
      ? [p(es ? `¿Preguntas? Escriba a ${branding.supportEmail}` : `Questions? Write to ${branding.supportEmail}`)]
      : []),
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
  const lang = templateLanguage(language);
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
    html: `<!doctype html>\n<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>\n<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#222222;max-width:600px;margin:0 auto;padding:16px">\n${logo}${blocks.map((block) => htmlOf(block, branding)).join('\n')}\n</body></html>\n`,
    sms: message.sms,
  };
}

/** The value a stored message shows in place of a secret (a one-time code). */
export const MASKED = '••••••';

/** The secrets of a kind, each replaced by `MASKED`: what the stored copy is rendered with. */
export const maskSecrets = <S extends Record<string, string>>(secrets: S): S =>
  Object.fromEntries(Object.keys(secrets).map((key) => [key, MASKED])) as S;
