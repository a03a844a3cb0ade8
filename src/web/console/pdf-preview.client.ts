import * as pdfjs from 'pdfjs-dist';
import { drawPage, pageSizes } from '../shared/pdf-pages';

// The console's PDF preview (bundled apart, console.routes.ts pdfPreviewAssets; loaded by ./pdf-preview.ts when a
// PDF preview first opens, so pdf.js stays out of the console's budget): each page drawn by pdf.js on a canvas at
// the preview's width, one under another. Phones and headless browsers do not draw a PDF in a frame.

const worker = (document.currentScript as HTMLScriptElement | null)?.dataset.worker;
if (worker) pdfjs.GlobalWorkerOptions.workerPort = new Worker(worker, { type: 'module' });

/** What this script gives the console: draw `data`'s pages in `holder`; the returned function stops and frees it. */
export type DrawPdf = (holder: HTMLElement, data: Uint8Array, name: string) => Promise<() => void>;

declare global {
  interface Window {
    gatherDrawPdf?: DrawPdf;
  }
}

const drawPdf: DrawPdf = async (holder, data, name) => {
  const loading = pdfjs.getDocument({ data, isEvalSupported: false });
  const pdf = await loading.promise;
  const sizes = await pageSizes(pdf);
  const canvases = sizes.map((_, index) => {
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `Preview of ${name}, page ${index + 1} of ${sizes.length}`);
    holder.append(canvas);
    return canvas;
  });
  const tasks = new Map<number, { cancel(): void }>();
  let drawnAt = 0;
  // Again when the width changes (a turned phone, a resized window).
  const redraw = () => {
    const width = holder.clientWidth;
    if (!width || width === drawnAt) return;
    drawnAt = width;
    sizes.forEach((size, index) => {
      tasks.get(index)?.cancel();
      pdf
        .getPage(index + 1)
        .then((page) => {
          tasks.set(index, drawPage(page, canvases[index], width / size.width).task);
          // Fluid until the next redraw: a narrower window never scrolls sideways meanwhile.
          canvases[index].style.width = '100%';
          canvases[index].style.height = 'auto';
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
    canvases.forEach((canvas) => canvas.remove());
    void loading.destroy();
  };
};

window.gatherDrawPdf = drawPdf;
