import { IntlMessageFormat } from 'intl-messageformat';

// Formatting in a recipient's language, for the server and the portal's browser script alike (this file
// loads no catalog: the page carries its own texts). Messages are ICU MessageFormat (plurals, selects,
// numbers), compiled once per language and text.

export type MessageValues = Record<string, string | number>;

/** The languages written right to left. */
const RIGHT_TO_LEFT = new Set(['ar', 'he']);

export const directionOf = (language: string): 'rtl' | 'ltr' => (RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr');

/**
 * The locale Intl formats a language's dates and numbers in. CLDR has no Haitian Creole data (Intl would
 * answer in English): Haitian French's layout, with the Creole month names (and `a` for `à`) put in by
 * `formatDate`.
 */
export const intlLocale = (language: string): string => (language === 'ht' ? 'fr-HT' : language);

const CREOLE_MONTHS = [
  'janvye',
  'fevriye',
  'mas',
  'avril',
  'me',
  'jen',
  'jiyè',
  'out',
  'septanm',
  'oktòb',
  'novanm',
  'desanm',
];

const compiled = new Map<string, IntlMessageFormat>();

/** One message with its values put in. `<` is text, not a tag: values and texts hold names and addresses. */
export function formatMessage(language: string, message: string, values?: MessageValues): string {
  const key = `${language}\u0000${message}`;
  let format = compiled.get(key);
  if (!format) {
    format = new IntlMessageFormat(message, intlLocale(language), undefined, { ignoreTag: true });
    compiled.set(key, format);
  }
  return String(format.format(values));
}

/** A date (and time) in the language's way, e.g. `15 décembre 2026`, `2026年12月15日`. */
export function formatDate(
  iso: string,
  language: string,
  options: { withTime?: boolean; timeZone?: string } = {},
): string {
  const format = new Intl.DateTimeFormat(intlLocale(language), {
    dateStyle: 'long',
    ...(options.withTime && { timeStyle: 'short' }),
    ...(options.timeZone && { timeZone: options.timeZone }),
  });
  const date = new Date(iso);
  if (language !== 'ht') return format.format(date);
  const month = Number(
    new Intl.DateTimeFormat('en', { month: 'numeric', timeZone: format.resolvedOptions().timeZone }).format(date),
  );
  return format
    .formatToParts(date)
    .map((part) =>
      part.type === 'month'
        ? CREOLE_MONTHS[month - 1]
        : part.type === 'literal'
          ? part.value.replace('à', 'a')
          : part.value,
    )
    .join('');
}

/** A file size in the language's digits and units: `1,5 MB`, `195,3 ko`, `2 кБ`. */
export function formatSize(bytes: number, language: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return new Intl.NumberFormat(intlLocale(language), {
    style: 'unit',
    unit: units[unit],
    unitDisplay: 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}
