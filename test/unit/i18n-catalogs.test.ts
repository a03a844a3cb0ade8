import { IntlMessageFormat } from 'intl-messageformat';
import { formatDate, formatMessage, formatSize } from '../../src/i18n/format';
import {
  CATALOGS,
  languageFromHeader,
  languageOf,
  resolveLanguage,
  t,
  type Catalog,
  type Namespace,
} from '../../src/i18n/i18n';
import { LANGUAGES } from '../../src/modules/requests/request.enums';

// Every language of the Language enum has a catalog with English's keys, every message is valid ICU, and
// each takes the same arguments as English's (names only: a translation may format `{n}` as `{n, number}`).

type Element = { type: number; value?: string; options?: Record<string, { value: Element[] }>; children?: Element[] };

/** The argument names a parsed message uses, plural and select branches included. */
function argumentsOf(elements: Element[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    // 0 is literal text and 7 the `#` of a plural: neither names an argument.
    if (element.type !== 0 && element.type !== 7 && element.value) into.add(element.value);
    for (const option of Object.values(element.options ?? {})) argumentsOf(option.value, into);
    if (element.children) argumentsOf(element.children, into);
  }
  return into;
}

const flat = (catalog: Catalog): [string, string][] =>
  (Object.keys(CATALOGS['en-US']) as Namespace[]).flatMap((namespace) =>
    Object.entries(catalog[namespace] ?? {}).map(([key, text]): [string, string] => [
      `${namespace}.${key}`,
      text as string,
    ]),
  );

const parse = (language: string, message: string) =>
  new IntlMessageFormat(message, language, undefined, { ignoreTag: true }).getAst() as unknown as Element[];

const english = new Map(flat(CATALOGS['en-US']));

describe('i18n catalogs', () => {
  it('should have a catalog for every language of the Language enum', () => {
    expect(Object.keys(CATALOGS).sort()).toEqual([...LANGUAGES].sort());
  });

  describe.each(LANGUAGES.map((language) => [language]))('%s', (language) => {
    const texts = new Map(flat(CATALOGS[language]));

    it("should have exactly English's keys, none empty", () => {
      expect([...texts.keys()].sort()).toEqual([...english.keys()].sort());
      for (const [key, text] of texts) expect({ key, empty: text.trim() === '' }).toEqual({ key, empty: false });
    });

    it("should parse every message as ICU, with English's arguments", () => {
      for (const [key, text] of texts) {
        const args = [...argumentsOf(parse(language, text))].sort();
        const expected = [...argumentsOf(parse('en-US', english.get(key)!))].sort();
        expect({ key, args }).toEqual({ key, args: expected });
      }
    });

    it('should differ from English in every sentence but names, codes and numbers', () => {
      if (language === 'en-US') return;
      const same = [...texts].filter(
        ([key, text]) => text === english.get(key) && /[a-z]{4}/i.test(text.replace(/\{[^}]*\}/g, '')),
      );
      // The same word in German or French: Code, Optional, Document, Signature; and a line of names and a page.
      const allowed = /^(portal\.(codeLabel|optional)|pdf\.(document|fieldPlaced|signature))$/;
      expect(same.map(([key]) => key).filter((key) => !allowed.test(key))).toEqual([]);
    });

    it('should format a plural for one and many', () => {
      const one = t(language, 'mail.shareBody', { sender: 'Olga', organization: 'Acme', title: 'T', count: 1 });
      const many = t(language, 'mail.shareBody', { sender: 'Olga', organization: 'Acme', title: 'T', count: 5 });
      expect(many).not.toContain('{');
      expect(many).toMatch(/5|٥/);
      expect(one).not.toContain('{');
    });
  });

  it('should format a date, a size and a number in the language', () => {
    expect(formatDate('2026-12-15T17:00:00Z', 'fr', { timeZone: 'UTC' })).toBe('15 décembre 2026');
    expect(formatDate('2026-12-15T17:00:00Z', 'zh', { timeZone: 'UTC' })).toBe('2026年12月15日');
    expect(formatDate('2026-12-15T17:00:00Z', 'ht', { timeZone: 'UTC' })).toBe('15 desanm 2026');
    expect(formatDate('2026-12-15T17:00:00Z', 'pa', { timeZone: 'UTC' })).toContain('ਦਸੰਬਰ');
    expect(formatSize(1536 * 1024, 'de')).toBe('1,5 MB');
    expect(formatSize(200_000, 'fr')).toMatch(/^195,3\sko$/);
    expect(formatSize(2048, 'ru')).toBe('2 кБ');
    expect(formatMessage('ru', CATALOGS.ru.portal.tooManyTries, { minutes: 5 })).toContain('5 минут');
    expect(formatMessage('ru', CATALOGS.ru.portal.tooManyTries, { minutes: 2 })).toContain('2 минуты');
  });

  it('should name a language by its tag, alias or base language', () => {
    expect(languageOf('en')).toBe('en-US');
    expect(languageOf('EN-gb')).toBe('en-US');
    expect(languageOf('fr-CA')).toBe('fr');
    expect(languageOf('zh-Hans-CN')).toBe('zh');
    expect(languageOf('ja')).toBeNull();
    expect(languageOf('')).toBeNull();
  });

  it('should resolve the first language named, else English', () => {
    expect(resolveLanguage(null, 'ko', 'es')).toBe('ko');
    expect(resolveLanguage(undefined, 'xx', 'pa')).toBe('pa');
    expect(resolveLanguage()).toBe('en-US');
  });

  it('should read Accept-Language by quality', () => {
    expect(languageFromHeader('ja;q=0.9, he;q=0.8, fr;q=0.5')).toBe('he');
    expect(languageFromHeader('de;q=0.2, ar')).toBe('ar');
    expect(languageFromHeader('ja, *;q=0.1')).toBeNull();
    expect(languageFromHeader(undefined)).toBeNull();
  });
});
