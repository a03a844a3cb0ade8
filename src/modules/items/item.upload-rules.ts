import type { UploadRulesInput } from '../../generated/resolvers-types';
import type { FieldPath, InputCheck } from '../../kernel/validation/input-check';
import { AppError } from '../../kernel/errors/app-error';
import { portableSegment } from '../files/file.names';
import type { UploadRule } from '../files/file.service';
import { MAX_ACCEPT_ENTRIES, MAX_FILE_NAME_PATTERN } from './item.limits';

/**
 * What an UPLOAD item accepts: types (extensions `.pdf` and MIME types `image/*`, matched against what
 * the bytes are, not what the name says), the largest file, the fewest and most files, and the name
 * its files take in downloads, the zip and cloud copies. Absent rules leave the service's own limits.
 */
export type UploadRules = {
  accept: string[];
  maxFileBytes: number | null;
  minFiles: number | null;
  maxFiles: number | null;
  fileNamePattern: string | null;
};

export const NAME_PLACEHOLDERS = [
  'request_name',
  'item_name',
  'recipient_first_name',
  'recipient_last_name',
  'date',
  'n',
] as const;
type Placeholder = (typeof NAME_PLACEHOLDERS)[number];

const EXTENSION = /^\.[a-z0-9]{1,16}$/;
const MIME_TYPE = /^[a-z]+\/(\*|[a-z0-9][a-z0-9.+-]*)$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;
// file-type names some types by one of their usual extensions only.
const SAME_EXTENSION: Record<string, string> = { jpeg: 'jpg', tif: 'tiff', htm: 'html' };
const canonical = (extension: string) => SAME_EXTENSION[extension] ?? extension;

/** The rules an input gives (null when it sets none), each problem added to `check` at its field. */
export function checkUploadRules(
  check: InputCheck,
  path: FieldPath,
  input: UploadRulesInput | null | undefined,
  limits: { maxUploadBytes: number; maxFilesPerItem: number },
): UploadRules | null {
  if (input == null) return null;
  const accept = [...new Set((input.accept ?? []).map((entry) => entry.trim().toLowerCase()))];
  if (accept.length > MAX_ACCEPT_ENTRIES)
    check.add([...path, 'accept'], `At most ${MAX_ACCEPT_ENTRIES} types`, 'TOO_MANY');
  accept.forEach((entry, index) => {
    if (!EXTENSION.test(entry) && !MIME_TYPE.test(entry))
      check.add(
        [...path, 'accept', index],
        `"${entry}" is neither an extension such as .pdf nor a MIME type such as image/*`,
        'INVALID',
      );
  });
  check
    .int([...path, 'maxFileBytes'], input.maxFileBytes, { min: 1, max: limits.maxUploadBytes })
    .int([...path, 'minFiles'], input.minFiles, { min: 0, max: limits.maxFilesPerItem })
    .int([...path, 'maxFiles'], input.maxFiles, { min: 1, max: limits.maxFilesPerItem })
    .text([...path, 'fileNamePattern'], input.fileNamePattern, { max: MAX_FILE_NAME_PATTERN, min: 1 });
  if (input.minFiles != null && input.maxFiles != null && input.minFiles > input.maxFiles)
    check.add([...path, 'minFiles'], 'minFiles is more than maxFiles', 'OUT_OF_RANGE');
  for (const [, name] of (input.fileNamePattern ?? '').matchAll(PLACEHOLDER)) {
    if (!(NAME_PLACEHOLDERS as readonly string[]).includes(name))
      check.add(
        [...path, 'fileNamePattern'],
        `{${name}} is not a placeholder; use ${NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
        'INVALID',
      );
  }
  return {
    accept,
    maxFileBytes: input.maxFileBytes ?? null,
    minFiles: input.minFiles ?? null,
    maxFiles: input.maxFiles ?? null,
    fileNamePattern: input.fileNamePattern?.trim() || null,
  };
}

/** Whether a file whose bytes are of `type` is of a type the rules accept (all are, without `accept`). */
export function acceptsType(rules: UploadRules | null, type: { mimeType: string; extension: string | null }): boolean {
  if (!rules || rules.accept.length === 0) return true;
  return rules.accept.some((entry) => {
    if (entry.startsWith('.')) return type.extension != null && canonical(entry.slice(1)) === canonical(type.extension);
    if (entry.endsWith('/*')) return type.mimeType.startsWith(entry.slice(0, -1));
    return type.mimeType === entry;
  });
}

/**
 * How `saveUpload` holds a file to an item's rules: a type the rules do not list, or a file over their
 * largest, is a 422 that says which rule and what the item accepts (nothing of the file is kept).
 */
export function uploadRuleFor(rules: UploadRules | null, name: string | null): UploadRule {
  if (!rules) return {};
  const accepts = rules.accept.length ? `; it accepts ${rules.accept.join(', ')}` : '';
  return {
    check: (type) => {
      if (!acceptsType(rules, type))
        throw AppError.validation([
          {
            field: ['file'],
            message: `The content of ${name ?? 'the file'} is ${type.mimeType}, a type this item does not accept${accepts}`,
            code: 'INVALID',
          },
        ]);
    },
    ...(rules.maxFileBytes != null && {
      maxBytes: rules.maxFileBytes,
      tooLarge: () =>
        AppError.validation([
          {
            field: ['file'],
            message: `This item takes files of at most ${rules.maxFileBytes} bytes${accepts}`,
            code: 'OUT_OF_RANGE',
          },
        ]),
    }),
  };
}

/** The files an item takes at most: its rule, within the service's MAX_FILES_PER_ITEM. */
export const maxFilesOf = (rules: UploadRules | null, maxFilesPerItem: number): number =>
  Math.min(rules?.maxFiles ?? Infinity, maxFilesPerItem);

/** Whether an item with `count` files has fewer than its rules ask, when it is required or started. */
export const fewerThanLeast = (rules: UploadRules | null, required: boolean, count: number): boolean =>
  rules?.minFiles != null && (required || count > 0) && count < rules.minFiles;

export type NameValues = Omit<Record<Placeholder, string>, 'n'>;

/**
 * The name a file takes by the item's pattern, `{n}` its number in the item (from 1): placeholders
 * filled in, made safe for file systems, the extension of the name it was uploaded under kept.
 */
export function patternedName(pattern: string, values: NameValues, n: number, originalName: string): string {
  const dot = originalName.lastIndexOf('.');
  const extension = dot > 0 && originalName.length - dot <= 16 ? originalName.slice(dot) : '';
  const stem = pattern.replace(PLACEHOLDER, (whole, name: string) =>
    name === 'n' ? String(n) : ((values as Record<string, string>)[name] ?? whole),
  );
  return portableSegment(`${portableSegment(stem, 'file')}${extension}`, `file${extension}`);
}
