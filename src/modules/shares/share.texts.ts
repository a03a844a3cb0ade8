import { portalLanguage } from '../portal/portal.texts';

// The share page's own texts (the sign-in form's are the portal's), per language; others show English.

const en = {
  signInTitle: 'Sign in to see the files',
  filesTitle: 'Files shared with you',
  messageFrom: 'Message from {owner}',
  availableUntil: 'Available until {date}.',
  noFiles: 'No files are shared here any more.',
  downloadHint: 'Each download is recorded for {owner}.',
  expiredTitle: 'This share has expired',
  expiredBody: 'Its files can no longer be downloaded. Ask the person who shared them to share them again.',
  deletedTitle: 'These files were deleted',
  deletedBody: 'The person who shared them set them to be deleted. Ask them to share them again.',
};

export type ShareTexts = typeof en;

const es: ShareTexts = {
  signInTitle: 'Inicie sesión para ver los archivos',
  filesTitle: 'Archivos compartidos con usted',
  messageFrom: 'Mensaje de {owner}',
  availableUntil: 'Disponibles hasta el {date}.',
  noFiles: 'Aquí ya no hay archivos compartidos.',
  downloadHint: 'Cada descarga queda registrada para {owner}.',
  expiredTitle: 'Este envío ha caducado',
  expiredBody: 'Sus archivos ya no se pueden descargar. Pida a quien los compartió que los vuelva a compartir.',
  deletedTitle: 'Estos archivos se eliminaron',
  deletedBody: 'Quien los compartió dispuso que se eliminaran. Pídale que los vuelva a compartir.',
};

const TEXTS: Record<string, ShareTexts> = { en, es };

export const shareTextsFor = (language: string | null | undefined): ShareTexts => TEXTS[portalLanguage(language)] ?? en;
