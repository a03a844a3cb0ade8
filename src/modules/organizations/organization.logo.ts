import render from 'dom-serializer';
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { AppError } from '../../kernel/errors/app-error';
import type { IncomingFile } from '../../kernel/http/files';
import { tooLarge } from '../../kernel/storage/storage';
import { detectType } from '../files/file.service';
import { MAX_LOGO_BYTES } from './organization.limits';

// A logo is shown to every recipient (portal, mails), so it is taken by its content, never its claimed
// type, and an SVG is rebuilt from an allow-list: only drawing elements and presentation attributes
// survive, references may point inside the document only (`#id`), and nothing that runs or loads
// (script, event handlers, foreignObject, style, external hrefs) is kept.

export type Logo = { type: 'image/png' | 'image/jpeg' | 'image/svg+xml'; bytes: Buffer };

const ELEMENTS = new Set(
  'svg g defs title desc symbol use path rect circle ellipse line polyline polygon text tspan linearGradient radialGradient stop clipPath mask pattern marker'.split(
    ' ',
  ),
);

const ATTRIBUTES = new Set(
  [
    'id xmlns xmlns:xlink version x y x1 y1 x2 y2 cx cy r rx ry fx fy dx dy rotate width height viewBox preserveAspectRatio d points transform',
    'fill fill-opacity fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset stroke-opacity',
    'opacity visibility display color offset stop-color stop-opacity gradientUnits gradientTransform spreadMethod clip-path clip-rule mask',
    'clipPathUnits maskUnits maskContentUnits patternUnits patternContentUnits patternTransform markerWidth markerHeight refX refY orient',
    'font-family font-size font-weight font-style text-anchor dominant-baseline letter-spacing href xlink:href',
  ]
    .join(' ')
    .split(' '),
);

/** Text is kept only where it is drawn or describes the image. */
const TEXT_PARENTS = new Set(['text', 'tspan', 'title', 'desc']);

/** A reference that stays inside the document: `#id`, or `url(#id)` in a paint or clip value. */
function safeValue(name: string, value: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  if (/[\u0000-\u001f]/.test(value)) return false;
  if (name === 'href' || name === 'xlink:href') return /^#[\w.-]+$/.test(value);
  if (/url\s*\(/i.test(value)) return /^\s*url\(\s*#[\w.-]+\s*\)\s*$/i.test(value);
  return !/(javascript|data|vbscript)\s*:/i.test(value);
}

function clean(nodes: ChildNode[], parent: string): ChildNode[] {
  const kept: ChildNode[] = [];
  for (const node of nodes) {
    if (node.type === 'text') {
      if (TEXT_PARENTS.has(parent)) kept.push(node);
    } else if (node.type === 'tag' && ELEMENTS.has(node.name)) {
      const element = node as Element;
      element.attribs = Object.fromEntries(
        Object.entries(element.attribs).filter(([name, value]) => ATTRIBUTES.has(name) && safeValue(name, value)),
      );
      element.children = clean(element.children, element.name);
      kept.push(element);
    }
    // Anything else (script, style, foreignObject, comments, processing instructions, CDATA, doctype) is dropped.
  }
  return kept;
}

/** The SVG rebuilt from the allow-list, or null when `text` is not an SVG document. */
export function sanitizeSvg(text: string): string | null {
  const document = parseDocument(text, { xmlMode: true });
  const roots = document.children.filter((node): node is Element => node.type === 'tag');
  if (roots.length !== 1 || roots[0].name !== 'svg') return null;
  const [svg] = clean(roots, '');
  return render(svg, { xmlMode: true, encodeEntities: 'utf8' });
}

async function readAll(upload: IncomingFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of upload.stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_LOGO_BYTES) {
      throw tooLarge(MAX_LOGO_BYTES);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The uploaded logo, checked by its content: 422 when empty, 413 above MAX_LOGO_BYTES, 415 when not PNG, JPEG or SVG.
 */
export async function readLogo(upload: IncomingFile): Promise<Logo> {
  const bytes = await readAll(upload);
  if (bytes.length === 0)
    throw AppError.validation([{ field: ['file'], message: 'The file is empty', code: 'REQUIRED' }]);
  const detected = await detectType(bytes);
  if (detected.mimeType === 'image/png' || detected.mimeType === 'image/jpeg')
    return { type: detected.mimeType, bytes };
  const svg =
    detected.mimeType === 'text/plain' || detected.mimeType === 'application/xml'
      ? sanitizeSvg(bytes.toString('utf8'))
      : null;
  if (svg) return { type: 'image/svg+xml', bytes: Buffer.from(svg, 'utf8') };
  throw new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `A logo must be a PNG, JPEG or SVG image (the content is ${detected.mimeType})`,
  );
}
