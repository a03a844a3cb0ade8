import { clamp, partsOf, patchBody, type RestContract } from '../../src/web/editor/layout';

// The contract editor's model (src/web/editor/layout.ts): boxes in points from a page's top left corner, read from
// the spec's layouts whatever their anchor and written back with the same anchor, so a save of untouched boxes
// changes nothing.

const PAGES = [
  { width: 612, height: 792 },
  { width: 595, height: 842 },
];

const CONTRACT: Pick<RestContract, 'fields' | 'annotations'> = {
  fields: [
    {
      id: 'sig-1',
      type: 'signature',
      placeholder: 'Sign here',
      assigned_to: { email: 'ana@example.com' },
      layout: {
        page: 2,
        position: { offset_x: 40, offset_y: 40, anchor_point: 'BOTTOM_RIGHT' },
        style: { width: 200, height: 40 },
      },
    },
    { type: 'text', layout: { page: 1, position: { offset_x: 72.25, offset_y: 100, anchor_point: 'TOP_LEFT' } } },
  ],
  annotations: [
    {
      type: 'date',
      defaultValue: '2026-12-01',
      layout: {
        page: 1,
        position: { offset_x: 10, offset_y: 20, anchor_point: 'BOTTOM_LEFT' },
        style: { width: 80, height: 20 },
      },
    },
  ],
};

describe('the editor layout', () => {
  it('should place each box from the top left whatever its anchor', () => {
    const [signature, text, date] = partsOf(CONTRACT, PAGES);
    expect(signature).toMatchObject({ page: 2, x: 595 - 40 - 200, y: 842 - 40 - 40, width: 200, height: 40 });
    // No style: the service's default box.
    expect(text).toMatchObject({ page: 1, x: 72.25, y: 100, width: 150, height: 30 });
    expect(date).toMatchObject({ kind: 'annotation', page: 1, x: 10, y: 792 - 20 - 20, text: '2026-12-01' });
  });

  it('should write back what it read, anchors and ids kept, sizes made explicit', () => {
    const body = patchBody(partsOf(CONTRACT, PAGES), PAGES);
    expect(body.fields[0]).toEqual(CONTRACT.fields[0]);
    expect(body.fields[1]).toEqual({
      ...CONTRACT.fields[1],
      layout: { ...CONTRACT.fields[1].layout, style: { width: 150, height: 30 } },
    });
    expect(body.annotations).toEqual(CONTRACT.annotations);
  });

  it('should keep a moved or resized box on its page', () => {
    const [, text] = partsOf(CONTRACT, PAGES);
    expect(clamp({ ...text, x: -5, y: 900 }, PAGES[0])).toMatchObject({ x: 0, y: 792 - 30 });
    expect(clamp({ ...text, width: 2, height: 5000 }, PAGES[0])).toMatchObject({ width: 8, height: 792, y: 0 });
  });
});
