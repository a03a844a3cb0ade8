import { Type } from '@sinclair/typebox';
import type { RestUploadRulesFragment } from '../../generated/operations';
import type { UploadRulesInput } from '../../generated/resolvers-types';
import { Body, Nullable, Text } from '../../kernel/rest/schemas';
import { restShape, type Field } from '../../kernel/rest/shape';
import { MAX_ACCEPT_ENTRIES, MAX_FILE_NAME_PATTERN } from './item.limits';

// The `upload_rules` of an UPLOAD item in REST (requests, items, templates, the recipient API); the
// service checks them (item.upload-rules.ts), the schema only their shape.

export const UploadRulesBody = Body({
  accept: Nullable(Type.Array(Text(100), { maxItems: MAX_ACCEPT_ENTRIES })),
  max_file_bytes: Nullable(Type.Integer({ minimum: 1 })),
  min_files: Nullable(Type.Integer({ minimum: 0 })),
  max_files: Nullable(Type.Integer({ minimum: 1 })),
  file_name_pattern: Nullable(Text(MAX_FILE_NAME_PATTERN)),
});

export const uploadRulesInputFromRest = (
  rules: (typeof UploadRulesBody)['static'] | null | undefined,
): UploadRulesInput | null | undefined =>
  rules && {
    accept: rules.accept,
    maxFileBytes: rules.max_file_bytes,
    minFiles: rules.min_files,
    maxFiles: rules.max_files,
    fileNamePattern: rules.file_name_pattern,
  };

export const { schema: UploadRulesOut, map: restUploadRules } = restShape((field: Field<RestUploadRulesFragment>) => ({
  accept: Type.Array(Type.String()),
  max_file_bytes: field(Nullable(Type.Integer()), (rules) => rules.maxFileBytes ?? null),
  min_files: field(Nullable(Type.Integer()), (rules) => rules.minFiles ?? null),
  max_files: field(Nullable(Type.Integer()), (rules) => rules.maxFiles ?? null),
  file_name_pattern: field(Nullable(Type.String()), (rules) => rules.fileNamePattern ?? null),
}));
