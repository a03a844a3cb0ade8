// Where a contract's field or annotation sits, for the contract editor and the recipient's signing page alike:
// the spec's layout (2.8: page, offset_x/offset_y from an anchor_point, width and height), as GET /contracts/{id}
// and the recipient API give it, turned into a box in points from the page's top left corner. Nothing of the
// browser's: the server's views (src/modules/portal/portal.view.ts) read its types too.

export type Anchor = 'TOP_LEFT' | 'TOP_RIGHT' | 'BOTTOM_LEFT' | 'BOTTOM_RIGHT';
export type RestLayout = {
  page?: number | null;
  position?: { offset_x: number; offset_y: number; anchor_point: Anchor } | null;
  style?: { width: number; height: number } | null;
};

export type PageSize = { width: number; height: number };
/** A box on a page (from 1), in points from its top left corner, with the corner its layout measured from. */
export type Box = { page: number; x: number; y: number; width: number; height: number; anchor: Anchor };

/** The size the service gives a box whose layout has none (contract.layout.ts DEFAULT_BOX). */
export const DEFAULT_BOX = { width: 150, height: 30 };

/** Points rounded to a hundredth: what a drag at any zoom gives is saved exactly as shown. */
export const round = (value: number): number => Math.round(value * 100) / 100;

/** Where a layout puts its box on `pages` (a layout naming a page the PDF lacks is on its last). */
export function boxOf(layout: RestLayout | null | undefined, pages: PageSize[]): Box {
  const page = Math.min(Math.max(layout?.page ?? 1, 1), Math.max(pages.length, 1));
  const size = pages[page - 1] ?? { width: 612, height: 792 };
  const { width, height } = layout?.style ?? DEFAULT_BOX;
  const { offset_x, offset_y, anchor_point } = layout?.position ?? {
    offset_x: 0,
    offset_y: 0,
    anchor_point: 'TOP_LEFT',
  };
  const x = anchor_point.endsWith('RIGHT') ? size.width - offset_x - width : offset_x;
  const y = anchor_point.startsWith('TOP') ? offset_y : size.height - offset_y - height;
  return { page, x: round(x), y: round(y), width, height, anchor: anchor_point };
}
