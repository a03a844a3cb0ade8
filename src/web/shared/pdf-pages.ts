import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import type { PageSize } from './layout';

// What the contract editor and the recipient's signing page both do with a contract's PDF with pdf.js: read its
// pages' sizes, and draw a page on a canvas (where its fields go: ./layout.ts).

/** Each page's size in points, in order. */
export async function pageSizes(document: PDFDocumentProxy): Promise<PageSize[]> {
  const sizes: PageSize[] = [];
  for (let n = 1; n <= document.numPages; n++) {
    const [x0, y0, x1, y1] = (await document.getPage(n)).view;
    sizes.push({ width: x1 - x0, height: y1 - y0 });
  }
  return sizes;
}

/**
 * Draws `page` on `canvas` at `scale` CSS pixels per point, sharp on a dense screen; the canvas takes the page's
 * size in CSS pixels. The returned task can be cancelled (a new scale before this one is drawn).
 */
export function drawPage(
  page: PDFPageProxy,
  canvas: HTMLCanvasElement,
  scale: number,
): { size: PageSize; task: { cancel(): void; promise: Promise<void> } } {
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  const task = page.render({
    canvasContext: canvas.getContext('2d')!,
    viewport,
    transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
  });
  task.promise.catch(() => undefined);
  return { size: { width: viewport.width, height: viewport.height }, task };
}

/**
 * Draws `pdf`'s pages on their canvases at `holder`'s width, again when it changes (a turned phone, a resized
 * window); `atScale` runs first for each page (what is placed on it follows). Between two drawings a canvas
 * takes its holder's width, so a narrower window never scrolls sideways meanwhile. The returned function stops.
 */
export function drawAtWidth(
  holder: HTMLElement,
  pdf: PDFDocumentProxy,
  sizes: PageSize[],
  canvasOf: (index: number) => HTMLCanvasElement,
  atScale?: (index: number, scale: number) => void,
): () => void {
  const tasks = new Map<number, { cancel(): void }>();
  let drawnAt = 0;
  const redraw = () => {
    const width = holder.clientWidth;
    if (!width || width === drawnAt) return;
    drawnAt = width;
    sizes.forEach((size, index) => {
      const scale = width / size.width;
      atScale?.(index, scale);
      tasks.get(index)?.cancel();
      pdf
        .getPage(index + 1)
        .then((page) => {
          const canvas = canvasOf(index);
          tasks.set(index, drawPage(page, canvas, scale).task);
          canvas.style.width = '100%';
          canvas.style.height = 'auto';
        })
        // Closed meanwhile: the document is gone, nothing to draw.
        .catch(() => undefined);
    });
  };
  redraw();
  const observer = new ResizeObserver(() => requestAnimationFrame(redraw));
  observer.observe(holder);
  return () => {
    observer.disconnect();
    tasks.forEach((task) => task.cancel());
  };
}
