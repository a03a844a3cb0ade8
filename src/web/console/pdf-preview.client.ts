import * as pdfjs from 'pdfjs-dist';
import { drawAtWidth, pageSizes } from '../shared/pdf-pages';

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
  const stop = drawAtWidth(holder, pdf, sizes, (index) => canvases[index]);
  return () => {
    stop();
    canvases.forEach((canvas) => canvas.remove());
    void loading.destroy();
  };
};

window.gatherDrawPdf = drawPdf;
