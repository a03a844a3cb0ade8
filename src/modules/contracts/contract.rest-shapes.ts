import { Type } from '@sinclair/typebox';
import type {
  ContractAnnotationType,
  ContractFieldType,
  RestContractFragment,
  RestContractLayoutFragment,
  RestContractPartsFragment,
} from '../../generated/operations';
import { MAX_EMAIL, MAX_PERSON_NAME, MAX_PHONE } from '../../kernel/limits';
import { Body, Nullable, StringEnum, Text } from '../../kernel/rest/schemas';
import { restShape, type Field as ShapeField } from '../../kernel/rest/shape';
import {
  MAX_CONTRACT_PAGE,
  MAX_CONTRACT_PARTS,
  MAX_LAYOUT_POINTS,
  MAX_PART_ID,
  MAX_PART_TEXT,
} from './contract.limits';

// The spec's shapes of contracts (2.8): camelCase at the top (`annotationUrl`, `defaultValue`),
// snake_case inside fields and layouts (`assigned_to`, `offset_x`), types in lower case.

const ANNOTATION_TYPES = ['string', 'number', 'date'] as const;
const FIELD_TYPES = ['text', 'signature', 'checkbox', 'radio', 'initials', 'date'] as const;
const ANCHOR_POINTS = ['TOP_LEFT', 'TOP_RIGHT', 'BOTTOM_LEFT', 'BOTTOM_RIGHT'] as const;

const points = MAX_LAYOUT_POINTS.toLocaleString('en-US');
const Offset = Type.Number({
  minimum: 0,
  maximum: MAX_LAYOUT_POINTS,
  description: `points from the anchor corner, 0 to ${points}`,
});
const Extent = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_LAYOUT_POINTS,
  description: `points, above 0 and at most ${points}`,
});

// One schema per element, for bodies and responses (responses leave unset members out).
export const Layout = Body({
  page: Nullable(Type.Integer({ minimum: 1, maximum: MAX_CONTRACT_PAGE, description: 'page number, from 1' })),
  position: Nullable(
    Body({ offset_x: Offset, offset_y: Offset, anchor_point: StringEnum(ANCHOR_POINTS) }, [
      'offset_x',
      'offset_y',
      'anchor_point',
    ]),
  ),
  style: Nullable(Body({ width: Extent, height: Extent }, ['width', 'height'])),
});
const Assignee = Body({
  email: Nullable(Text(MAX_EMAIL)),
  firstName: Nullable(Text(MAX_PERSON_NAME)),
  lastName: Nullable(Text(MAX_PERSON_NAME)),
  phone: Nullable(Text(MAX_PHONE)),
});
const Annotation = Body(
  {
    id: Nullable(Text(MAX_PART_ID)),
    type: StringEnum(ANNOTATION_TYPES),
    defaultValue: Nullable(Text(MAX_PART_TEXT)),
    layout: Nullable(Layout),
  },
  ['type'],
);
const Field = Body(
  {
    id: Nullable(Text(MAX_PART_ID)),
    type: StringEnum(FIELD_TYPES),
    placeholder: Nullable(Text(MAX_PART_TEXT)),
    assigned_to: Nullable(Assignee),
    layout: Nullable(Layout),
  },
  ['type'],
);

/** PATCH /contracts/{id}: bad shapes are a 400, as the spec says. */
export const ContractUpdateBody = Body({
  annotations: Type.Array(Annotation, { maxItems: MAX_CONTRACT_PARTS }),
  fields: Type.Array(Field, { maxItems: MAX_CONTRACT_PARTS }),
});
type AnnotationIn = (typeof Annotation)['static'];
type FieldIn = (typeof Field)['static'];
type LayoutIn = (typeof Layout)['static'];

const layoutFromRest = (layout: LayoutIn | null | undefined) =>
  layout && {
    page: layout.page,
    position: layout.position && {
      offsetX: layout.position.offset_x,
      offsetY: layout.position.offset_y,
      anchorPoint: layout.position.anchor_point,
    },
    style: layout.style,
  };

export function contractUpdateInputFromRest(body: (typeof ContractUpdateBody)['static']) {
  return {
    ...(body.annotations && {
      annotations: body.annotations.map((a: AnnotationIn) => ({
        id: a.id,
        type: a.type.toUpperCase() as ContractAnnotationType,
        defaultValue: a.defaultValue,
        layout: layoutFromRest(a.layout),
      })),
    }),
    ...(body.fields && {
      fields: body.fields.map((f: FieldIn) => ({
        id: f.id,
        type: f.type.toUpperCase() as ContractFieldType,
        placeholder: f.placeholder,
        assignedTo: f.assigned_to,
        layout: layoutFromRest(f.layout),
      })),
    }),
  };
}

/** Keeps the keys whose value is set, as the spec's optional element fields are absent, not null. */
const present = <T extends Record<string, unknown>>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));

export const layoutToRest = (layout: RestContractLayoutFragment | null) =>
  layout &&
  present({
    page: layout.page,
    position: layout.position && {
      offset_x: layout.position.offsetX,
      offset_y: layout.position.offsetY,
      anchor_point: layout.position.anchorPoint,
    },
    style: layout.style,
  });

/** Annotations and fields in REST form: the contract's, and an E_SIGNATURE item's `eSignature`. */
export const contractPartFields = <S extends RestContractPartsFragment>(field: ShapeField<S>) => ({
  annotations: field(Type.Array(Annotation), (contract) =>
    contract.annotations.map(
      (a) =>
        present({
          id: a.id,
          type: a.type.toLowerCase(),
          defaultValue: a.defaultValue,
          layout: layoutToRest(a.layout),
        }) as AnnotationIn,
    ),
  ),
  fields: field(Type.Array(Field), (contract) =>
    contract.fields.map(
      (f) =>
        present({
          id: f.id,
          type: f.type.toLowerCase(),
          placeholder: f.placeholder,
          assigned_to: f.assignedTo && present(f.assignedTo),
          layout: layoutToRest(f.layout),
        }) as FieldIn,
    ),
  ),
});

export const { schema: ContractBody, map: restContract } = restShape((field: ShapeField<RestContractFragment>) => ({
  id: Type.String(),
  // The spec's "File" object; a contract has one file, so it shares the contract's id.
  document: field(Type.Object({ id: Type.String(), name: Type.String(), mime: Type.String() }), (contract) => ({
    id: contract.id,
    name: contract.name,
    mime: contract.mimeType,
  })),
  annotationUrl: Type.String(),
  ...contractPartFields(field),
  created_at: Type.String(),
  updated_at: Type.String(),
}));
