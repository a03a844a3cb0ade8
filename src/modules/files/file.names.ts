import { MAX_FILE_NAME, MAX_ZIP_SEGMENT } from './file.limits';

// File names come from clients and go into Content-Disposition headers, zip entries and file systems:
// they are made safe once, when stored, and again for zip entries, which have stricter rules.

// C0 and C1 controls, DEL, and lone surrogates (which PostgreSQL would store as U+FFFD).
// eslint-disable-next-line no-control-regex -- these are the characters it removes
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Characters Windows refuses in names, and both separators.
const NOT_PORTABLE = /[<>:"/\\|?*]/g;

/** Cuts `name` to `max` characters, keeping its extension (`…pdf`) when it has a short one. */
function truncate(name: string, max: number): string {
  const chars = [...name];
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  return chars.slice(0, max - [...extension].length).join('') + extension;
}

/**
 * The name a file is stored under: the last segment of what the client sent (browsers may send
 * `C:\\fakepath\\x.pdf`), without control characters, at most 255 characters; `file.<ext>` when
 * nothing is left.
 */
export function storedFileName(name: string | null, extension: string | null): string {
  const last = (name ?? '').split(/[/\\]/).pop() ?? '';
  const clean = last.replace(UNSAFE, '').trim();
  if (!clean || clean === '.' || clean === '..') return extension ? `file.${extension}` : 'file';
  return truncate(clean, MAX_FILE_NAME);
}

/** A name safe as one segment of a zip entry on any system: no separators, no `..`, no reserved characters. */
export function portableSegment(name: string, fallback: string, max = MAX_ZIP_SEGMENT): string {
  const clean = name
    .replace(UNSAFE, '')
    .replace(NOT_PORTABLE, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  return truncate(clean || fallback, max);
}

/**
 * Makes names unique (case-insensitively, as Windows and macOS compare them) by numbering repeats: `a.pdf`, `a
 * (2).pdf`.
 */
export function uniqueNames(): (name: string) => string {
  const taken = new Set<string>();
  return (name) => {
    const dot = name.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${extension}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  };
}
