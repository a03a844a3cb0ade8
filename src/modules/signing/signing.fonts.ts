import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import * as fontkit from 'fontkit';
import { StandardFonts, type Color, type PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';

// Text in every script the recipients' languages use, on the signed PDF. What the standard PDF fonts can
// write (WinAnsi: Latin) stays in them; any other character is written in the Noto font of its script,
// embedded as a subset (only the glyphs drawn), shaped by fontkit (Arabic joining, Gurmukhi vowel signs).
// Lines with right-to-left words are put in visual order by a small form of the Unicode bidi algorithm:
// runs of Arabic or Hebrew letters read right to left, digits and Latin words inside them left to right.

type Script = 'latin' | 'arabic' | 'hebrew' | 'gurmukhi' | 'chinese' | 'korean';

/** A file of an installed font package (its documented `fonts/` or `files/` folder). */
const fontFile = (pkg: string, folder: string, file: string) => () =>
  join(dirname(require.resolve(`${pkg}/package.json`)), folder, file);
const embedpdf = (name: string, file: string) => () =>
  join(dirname(require.resolve(`@embedpdf/fonts-${name}`)), '..', 'fonts', file);

/** The Noto font of each script, regular and (where the package has it) bold. */
const SOURCES: Record<Script, { regular: () => string; bold?: () => string }> = {
  // Latin beyond WinAnsi, Cyrillic, Greek, Vietnamese.
  latin: { regular: embedpdf('latin', 'NotoSans-Regular.ttf'), bold: embedpdf('latin', 'NotoSans-Bold.ttf') },
  arabic: {
    regular: embedpdf('arabic', 'NotoNaskhArabic-Regular.ttf'),
    bold: embedpdf('arabic', 'NotoNaskhArabic-Bold.ttf'),
  },
  hebrew: {
    regular: embedpdf('hebrew', 'NotoSansHebrew-Regular.ttf'),
    bold: embedpdf('hebrew', 'NotoSansHebrew-Bold.ttf'),
  },
  gurmukhi: {
    regular: fontFile('@fontsource/noto-sans-gurmukhi', 'files', 'noto-sans-gurmukhi-gurmukhi-400-normal.woff'),
    bold: fontFile('@fontsource/noto-sans-gurmukhi', 'files', 'noto-sans-gurmukhi-gurmukhi-700-normal.woff'),
  },
  // GB 2312's characters; Korean's font adds Hangul and the common Hanja.
  chinese: { regular: embedpdf('sc', 'NotoSansHans-Regular.otf') },
  korean: { regular: embedpdf('kr', 'NotoSansKR-Regular.otf') },
};

const between = (cp: number, ranges: [number, number][]) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

function scriptOf(cp: number): Script {
  if (
    between(cp, [
      [0x0590, 0x05ff],
      [0xfb1d, 0xfb4f],
    ])
  )
    return 'hebrew';
  if (
    between(cp, [
      [0x0600, 0x06ff],
      [0x0750, 0x077f],
      [0x08a0, 0x08ff],
      [0xfb50, 0xfdff],
      [0xfe70, 0xfeff],
    ])
  )
    return 'arabic';
  if (between(cp, [[0x0a00, 0x0a7f]])) return 'gurmukhi';
  if (
    between(cp, [
      [0x1100, 0x11ff],
      [0x3130, 0x318f],
      [0xac00, 0xd7af],
    ])
  )
    return 'korean';
  if (
    between(cp, [
      [0x2e80, 0x2fdf],
      [0x3000, 0x30ff],
      [0x3400, 0x4dbf],
      [0x4e00, 0x9fff],
      [0xf900, 0xfaff],
      [0xff00, 0xffef],
    ])
  )
    return 'chinese';
  return 'latin';
}

/** Letters written right to left (Arabic-Indic digits are numbers: they read left to right). */
const isRightToLeft = (cp: number) =>
  (scriptOf(cp) === 'hebrew' || scriptOf(cp) === 'arabic') &&
  !between(cp, [
    [0x0660, 0x0669],
    [0x06f0, 0x06f9],
  ]);
const isNeutral = (char: string) => /[\s\p{P}\p{S}]/u.test(char);
const MIRRORED: Record<string, string> = {
  '(': ')',
  ')': '(',
  '[': ']',
  ']': '[',
  '<': '>',
  '>': '<',
  '«': '»',
  '»': '«',
};

/**
 * pdf-lib embeds fonts through fontkit; the maintained fontkit (2.x) subsets TrueType and CFF fonts correctly
 * (pdf-lib's own fork corrupts both) but hands a subset over with `encode()`, where pdf-lib asks for
 * `encodeStream()`. A subset is also encoded more than once here (the document is saved for the hash of the
 * stamped pages, then again after the audit pages), and fontkit's `encode()` numbers the components of
 * composite glyphs after the glyphs included so far, numbers pdf-lib would then give to new glyphs: each
 * encoding is made from a fresh subset of the same glyphs, in the same order, so the numbers stay pdf-lib's.
 */
function pdfLibSubset(createSubset: () => fontkit.Subset) {
  const numbering = createSubset();
  const included: fontkit.Glyph[] = [];
  const seen = new Set<number>();
  return {
    cff: (numbering as unknown as { cff?: unknown }).cff,
    includeGlyph(glyph: fontkit.Glyph) {
      if (!seen.has(glyph.id)) {
        seen.add(glyph.id);
        included.push(glyph);
      }
      return numbering.includeGlyph(glyph);
    },
    encodeStream() {
      const subset = createSubset();
      for (const glyph of included) subset.includeGlyph(glyph);
      return Readable.from([subset.encode()]);
    },
  };
}

type PdfLibFontkit = Parameters<PDFDocument['registerFontkit']>[0];
const FONTKIT: PdfLibFontkit = {
  create(data: Uint8Array) {
    const font = fontkit.create(Buffer.from(data)) as fontkit.Font;
    // pdf-lib's type of a font names fields fontkit 2's types leave out (`cff`, `head`, `post`); the object has
    // them. Only its subsets change, for pdf-lib's `encodeStream()`.
    const createSubset = font.createSubset.bind(font);
    return Object.assign(font, { createSubset: () => pdfLibSubset(createSubset) }) as unknown as ReturnType<
      PdfLibFontkit['create']
    >;
  },
};

/** Each font file opened once per process: its glyph coverage, and its bytes for embedding. */
const opened = new Map<string, { bytes: Buffer; font: fontkit.Font }>();
function openFont(path: string) {
  let entry = opened.get(path);
  if (!entry) {
    const bytes = readFileSync(path);
    entry = { bytes, font: fontkit.create(bytes) as fontkit.Font };
    opened.set(path, entry);
  }
  return entry;
}

/**
 * pdf-lib draws glyphs by their advance widths and never reads the positions fontkit's GPOS features compute;
 * those features also fail on some fonts' mark anchors (Noto Sans Gurmukhi's): they are left out.
 */
const NO_POSITIONING = { mark: false, mkmk: false, abvm: false, blwm: false, dist: false, kern: false, curs: false };

export type FontKey = 'regular' | 'bold' | 'script' | 'mono';
type Run = { text: string; font: PDFFont };

export type Typesetter = {
  /** Embeds the fonts `texts` need; call before drawing them (embedding is asynchronous, drawing is not). */
  prepare(texts: { text: string; font?: FontKey }[]): Promise<void>;
  width(text: string, font: FontKey, size: number): number;
  /** Draws one line from `x` (its left end, whichever way it reads). */
  draw(page: PDFPage, text: string, options: { x: number; y: number; size: number; font: FontKey; color: Color }): void;
  /** Whether the document reads right to left (its lines are then set against the right margin). */
  rightToLeft: boolean;
};

/** A typesetter for `pdf`; `rightToLeft` when the document's language reads so (ar, he). */
export async function typesetter(pdf: PDFDocument, rightToLeft: boolean): Promise<Typesetter> {
  pdf.registerFontkit(FONTKIT);
  const standard: Record<FontKey, PDFFont> = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
    script: await pdf.embedFont(StandardFonts.TimesRomanItalic),
    mono: await pdf.embedFont(StandardFonts.Courier),
  };
  const winAnsi = new Set(standard.regular.getCharacterSet());
  const embedded = new Map<string, PDFFont>();
  const coverage = new Map<PDFFont, Set<number>>();
  const covers = (font: PDFFont, cp: number) => {
    let set = coverage.get(font);
    if (!set) coverage.set(font, (set = new Set(font.getCharacterSet())));
    return set.has(cp);
  };
  const weightOf = (font: FontKey) => (font === 'bold' ? 'bold' : 'regular');

  const sourceOf = (cp: number, font: FontKey) => {
    const source = SOURCES[scriptOf(cp)];
    const path = (weightOf(font) === 'bold' && source.bold) || source.regular;
    return path();
  };

  /** The font that writes `char` in the style `font`, or null when none has it. */
  const fontFor = (char: string, font: FontKey): PDFFont | null => {
    const cp = char.codePointAt(0)!;
    if (winAnsi.has(cp)) return standard[font];
    const found = embedded.get(sourceOf(cp, font));
    return found && covers(found, cp) ? found : null;
  };

  /** Splits `text` into runs of one font, in reading order; a character no font has becomes `?`. */
  const fontRuns = (text: string, font: FontKey): Run[] => {
    const runs: Run[] = [];
    for (const char of text) {
      let chosen = fontFor(char, font);
      let shown = char;
      // A space or a punctuation mark inside a run stays in the run's font when it has it (shaping).
      const last = runs.at(-1);
      if (last && isNeutral(char) && last.font !== chosen && covers(last.font, char.codePointAt(0)!))
        chosen = last.font;
      if (!chosen) {
        chosen = standard[font];
        shown = '?';
      }
      if (last && last.font === chosen) last.text += shown;
      else runs.push({ text: shown, font: chosen });
    }
    return runs;
  };

  /** The line's runs in visual order, left to right. */
  const visualRuns = (text: string, font: FontKey): Run[] => {
    const chars = [...text];
    const strong = chars.map((char) => (isNeutral(char) ? null : isRightToLeft(char.codePointAt(0)!) ? 'R' : 'L'));
    const first = strong.find((s) => s !== null);
    if (!strong.includes('R')) return fontRuns(text, font);
    const base = first ?? (rightToLeft ? 'R' : 'L');
    // A neutral takes the direction of the letters on both sides when they agree, else the line's.
    const resolved = strong.map((s, i) => {
      if (s) return s;
      const before = strong
        .slice(0, i)
        .reverse()
        .find((x) => x !== null);
      const after = strong.slice(i + 1).find((x) => x !== null);
      return before && before === after ? before : base;
    });
    const levels: { dir: 'L' | 'R'; text: string }[] = [];
    chars.forEach((char, i) => {
      const last = levels.at(-1);
      if (last && last.dir === resolved[i]) last.text += char;
      else levels.push({ dir: resolved[i]!, text: char });
    });
    const ordered = base === 'R' ? levels.reverse() : levels;
    return ordered.flatMap(({ dir, text: part }) => {
      const runs = fontRuns(part, font);
      if (dir === 'L') return runs;
      // Right to left: fontkit turns a run of Arabic or Hebrew letters itself; marks alone are turned here.
      return runs.reverse().map((run) =>
        [...run.text].some((c) => isRightToLeft(c.codePointAt(0)!))
          ? run
          : {
              ...run,
              text: [...run.text]
                .reverse()
                .map((c) => MIRRORED[c] ?? c)
                .join(''),
            },
      );
    });
  };

  return {
    rightToLeft,
    async prepare(texts) {
      const needed = new Set<string>();
      for (const { text, font = 'regular' } of texts) {
        for (const char of text) {
          const cp = char.codePointAt(0)!;
          if (winAnsi.has(cp)) continue;
          const path = sourceOf(cp, font);
          if (!embedded.has(path) && openFont(path).font.hasGlyphForCodePoint(cp)) needed.add(path);
        }
      }
      for (const path of needed)
        embedded.set(path, await pdf.embedFont(openFont(path).bytes, { subset: true, features: NO_POSITIONING }));
    },
    width(text, font, size) {
      return visualRuns(text, font).reduce((sum, run) => sum + run.font.widthOfTextAtSize(run.text, size), 0);
    },
    draw(page, text, { x, y, size, font, color }) {
      let at = x;
      for (const run of visualRuns(text, font)) {
        page.drawText(run.text, { x: at, y, size, font: run.font, color });
        at += run.font.widthOfTextAtSize(run.text, size);
      }
    },
  };
}
