import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LANGUAGE, LANGUAGE_ALIASES, LANGUAGES, type Language } from '../modules/requests/request.enums';
import type { Catalog, MessageKey, Namespace } from './catalog';
import { formatMessage, type MessageValues } from './format';

// Everything a recipient reads, in each language of the Language enum: one catalog per language
// (catalogs/<language>.json), its keys grouped by where they are read (the portal and its pages, the
// share pages, mail and SMS, the signed PDF's audit page). English is the reference: every catalog has
// its keys with the same placeholders (test/unit/i18n-catalogs.test.ts).

export type { Catalog, MessageKey, Namespace, PortalTextKey, PortalTexts } from './catalog';

const loadCatalog = (language: Language): Catalog =>
  JSON.parse(readFileSync(join(__dirname, 'catalogs', `${language}.json`), 'utf8')) as Catalog;

export const CATALOGS: Record<Language, Catalog> = Object.fromEntries(
  LANGUAGES.map((language) => [language, loadCatalog(language)]),
) as Record<Language, Catalog>;

const BY_LOWER_CASE = new Map<string, Language>([
  ...LANGUAGES.map((language) => [language.toLowerCase(), language] as const),
  ...Object.entries(LANGUAGE_ALIASES),
]);

/**
 * The language a tag names: itself (`es`, any case), an alias (`en`), or its base language (`fr-CA` is
 * `fr`, `en-GB` is `en`, `zh-Hans-CN` is `zh`); null when none of the enum's.
 */
export function languageOf(tag: string | null | undefined): Language | null {
  const lower = tag?.trim().toLowerCase();
  if (!lower) return null;
  return BY_LOWER_CASE.get(lower) ?? BY_LOWER_CASE.get(lower.split('-')[0]) ?? null;
}

/**
 * What a recipient reads in: the first of `candidates` that names a language, in the order given
 * (a choice made on the page, the recipient's, the request's, the organization's default), else English.
 */
export function resolveLanguage(...candidates: (string | null | undefined)[]): Language {
  for (const candidate of candidates) {
    const language = languageOf(candidate);
    if (language) return language;
  }
  return DEFAULT_LANGUAGE;
}

/** The language of an Accept-Language header with texts, best `q` first (pages about no known link), else null. */
export function languageFromHeader(header: string | undefined): Language | null {
  const ranked = (header ?? '')
    .split(',')
    .map((part, position) => {
      const [tag, ...params] = part.split(';');
      const q = Number(/^\s*q=([\d.]+)/.exec(params.find((p) => /^\s*q=/.test(p)) ?? '')?.[1] ?? 1);
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, position };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.position - b.position);
  for (const { tag } of ranked) {
    const language = languageOf(tag);
    if (language) return language;
  }
  return null;
}

/** The message `key` (`mail.codeSubject`) in `language`, its values put in. */
export function t(language: Language, key: MessageKey, values?: MessageValues): string {
  const [namespace, name] = key.split('.') as [Namespace, string];
  const message = (CATALOGS[language][namespace] as Record<string, string>)[name];
  return formatMessage(language, message, values);
}

/** Each language by its own name (`Español`, `中文`), for the language switch. */
export const LANGUAGE_NAMES: { language: Language; name: string }[] = LANGUAGES.map((language) => ({
  language,
  name: CATALOGS[language].portal.languageName,
}));
