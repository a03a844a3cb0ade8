import { formatText, PORTAL_TEXTS, portalLanguage, textsFor } from '../../src/modules/portal/portal.texts';

const marks = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('portal texts', () => {
  const english = PORTAL_TEXTS.en;
  const languages = Object.keys(PORTAL_TEXTS).filter((language) => language !== 'en');

  it('should have English and Spanish at least', () => {
    expect(Object.keys(PORTAL_TEXTS)).toEqual(expect.arrayContaining(['en', 'es']));
  });

  it.each(languages)('should give %s every key of English, each with the same marks', (language) => {
    const texts = PORTAL_TEXTS[language];
    expect(Object.keys(texts).sort()).toEqual(Object.keys(english).sort());
    for (const [key, value] of Object.entries(english)) {
      expect({ key, text: texts[key as keyof typeof texts].trim().length > 0 }).toEqual({ key, text: true });
      expect({ key, marks: marks(texts[key as keyof typeof texts]) }).toEqual({ key, marks: marks(value) });
    }
  });

  it('should choose the table by the base of the request language and fall back to English', () => {
    expect(portalLanguage('es')).toBe('es');
    expect(portalLanguage('en-US')).toBe('en');
    expect(portalLanguage('ko')).toBe('en');
    expect(portalLanguage(null)).toBe('en');
    expect(textsFor('fr')).toBe(english);
  });

  it('should fill marks and leave unknown ones visible', () => {
    expect(formatText('{done} of {total} done', { done: 2, total: 3 })).toBe('2 of 3 done');
    expect(formatText('Hello {name}')).toBe('Hello {name}');
  });
});
