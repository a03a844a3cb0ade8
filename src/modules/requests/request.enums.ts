// Closed sets of the interface spec (sections 2 and 3). GraphQL enums mirror them one to one.

export const REQUEST_STATES = [
  'PRE_LINK_GENERATED',
  'INCOMPLETE_AND_FRESHLY_GENERATED',
  'INCOMPLETE_AND_LINK_GENERATED',
  'INCOMPLETE_AND_LINK_SENT',
  'PARTIALLY_SUBMITTED',
  'REJECTED',
  'SUBMITTED',
  'UPDATED_AND_SUBMITTED',
  'EXPIRATION_EMAIL_SENT',
  'COMPLETE_AND_SUBMITTED',
  'VERIFIED',
  'EXPIRED',
  'CLOSED',
] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

export const LANGUAGES = [
  'en-US',
  'es',
  'ar',
  'zh',
  'fr',
  'de',
  'ht',
  'he',
  'id',
  'it',
  'ko',
  'pt',
  'pa',
  'ru',
] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en-US';
/** Days between reminders of a request (and of a template) that names none. */
export const DEFAULT_REMINDERS = 3;
/** The spec writes the default as "en"; legacy clients send it. */
export const LANGUAGE_ALIASES: Record<string, Language> = { en: 'en-US' };

/** Where a request's documents go besides Gather's own storage (docs/rest.md, Cloud storage). */
export const CONNECTION_PROVIDERS = [
  'SERVICE',
  'S3',
  'GOOGLE_DRIVE',
  'DROPBOX',
  'BOX',
  'ONEDRIVE',
  'SHAREPOINT',
] as const;
export type ConnectionProvider = (typeof CONNECTION_PROVIDERS)[number];

/** GraphQL spells `en-US` as EN_US; every other language is its code in capitals. */
export const LANGUAGE_GRAPHQL_VALUES = Object.fromEntries(
  LANGUAGES.map((language) => [language.replace('-', '_').toUpperCase(), language]),
) as Record<string, Language>;
