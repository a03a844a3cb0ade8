// The editor's model of a contract's fields and annotations: each part as a box on a page, in points from the
// page's top left corner, read from and written back to the spec's layout (page, offset_x/offset_y from an
// anchor_point, width and height) in the shapes of GET and PATCH /contracts/{id}.

import { boxOf, round, type Anchor, type PageSize, type RestLayout } from '../shared/layout';

export { DEFAULT_BOX, round, type PageSize } from '../shared/layout';

export const FIELD_TYPES = ['text', 'signature', 'checkbox', 'radio', 'initials', 'date'] as const;
export const ANNOTATION_TYPES = ['string', 'number', 'date'] as const;
export type RestAssignee = { email?: string; firstName?: string; lastName?: string; phone?: string };
export type RestField = {
  id?: string;
  type: string;
  placeholder?: string;
  assigned_to?: RestAssignee;
  layout?: RestLayout;
};
export type RestAnnotation = { id?: string; type: string; defaultValue?: string; layout?: RestLayout };
export type RestContract = {
  id: string;
  document: { name: string; mime: string };
  annotationUrl: string;
  fields: RestField[];
  annotations: RestAnnotation[];
  updated_at: string;
};

/** One box being edited. `key` is the editor's own; `id` the contract's, kept as it was. */
export type Part = {
  key: string;
  kind: 'field' | 'annotation';
  id?: string;
  type: string;
  /** A field's placeholder, an annotation's default value. */
  text: string;
  assignee: RestAssignee;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The corner its layout measured from, kept when saved. */
  anchor: Anchor;
};

/** The size of a new box of each type: a mark is square, a signature tall enough to sign. */
export const NEW_BOX: Record<string, { width: number; height: number }> = {
  checkbox: { width: 18, height: 18 },
  radio: { width: 18, height: 18 },
  signature: { width: 180, height: 40 },
  initials: { width: 60, height: 36 },
};
/** Smallest box side a drag leaves, in points. */
export const MIN_SIDE = 8;

let counter = 0;
export const newKey = (): string => `part-${++counter}`;

/** The contract's parts as boxes on `pages` (a layout naming a page the PDF lacks shows on its last). */
export function partsOf(contract: Pick<RestContract, 'fields' | 'annotations'>, pages: PageSize[]): Part[] {
  return [
    ...contract.fields.map((f): Part => ({
      key: newKey(),
      kind: 'field',
      id: f.id,
      type: f.type,
      text: f.placeholder ?? '',
      assignee: f.assigned_to ?? {},
      ...boxOf(f.layout, pages),
    })),
    ...contract.annotations.map((a): Part => ({
      key: newKey(),
      kind: 'annotation',
      id: a.id,
      type: a.type,
      text: a.defaultValue ?? '',
      assignee: {},
      ...boxOf(a.layout, pages),
    })),
  ];
}

function toLayout(part: Part, pages: PageSize[]): RestLayout {
  const size = pages[part.page - 1];
  const right = part.anchor.endsWith('RIGHT');
  const top = part.anchor.startsWith('TOP');
  return {
    page: part.page,
    position: {
      offset_x: round(Math.max(0, right ? size.width - part.x - part.width : part.x)),
      offset_y: round(Math.max(0, top ? part.y : size.height - part.y - part.height)),
      anchor_point: part.anchor,
    },
    style: { width: round(part.width), height: round(part.height) },
  };
}

const filled = (assignee: RestAssignee): RestAssignee | undefined => {
  const entries = Object.entries(assignee).filter(([, value]) => typeof value === 'string' && value.trim());
  return entries.length
    ? (Object.fromEntries(entries.map(([k, v]) => [k, (v as string).trim()])) as RestAssignee)
    : undefined;
};

/** The body of PATCH /contracts/{id}: every field and annotation, in the order shown. */
export function patchBody(parts: Part[], pages: PageSize[]): { fields: RestField[]; annotations: RestAnnotation[] } {
  const fields = parts
    .filter((p) => p.kind === 'field')
    .map((p): RestField => {
      const assignee = filled(p.assignee);
      return {
        ...(p.id ? { id: p.id } : {}),
        type: p.type,
        ...(p.text.trim() ? { placeholder: p.text.trim() } : {}),
        ...(assignee ? { assigned_to: assignee } : {}),
        layout: toLayout(p, pages),
      };
    });
  const annotations = parts
    .filter((p) => p.kind === 'annotation')
    .map((p): RestAnnotation => ({
      ...(p.id ? { id: p.id } : {}),
      type: p.type,
      ...(p.text.trim() ? { defaultValue: p.text.trim() } : {}),
      layout: toLayout(p, pages),
    }));
  return { fields, annotations };
}

/** A box kept on its page: at least MIN_SIDE wide and high, no corner off the page. */
export function clamp(part: Part, size: PageSize): Part {
  const width = round(Math.min(Math.max(part.width, MIN_SIDE), size.width));
  const height = round(Math.min(Math.max(part.height, MIN_SIDE), size.height));
  return {
    ...part,
    width,
    height,
    x: round(Math.min(Math.max(part.x, 0), size.width - width)),
    y: round(Math.min(Math.max(part.y, 0), size.height - height)),
  };
}

/** What a box is, in words: its type, and its placeholder, default value or signer. */
export function partLabel(part: Part): string {
  const type = part.type.charAt(0).toUpperCase() + part.type.slice(1);
  const who = part.assignee.email ?? [part.assignee.firstName, part.assignee.lastName].filter(Boolean).join(' ');
  const detail = part.text || who;
  return detail ? `${type}: ${detail}` : type;
}
