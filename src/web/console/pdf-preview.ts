import type { DrawPdf } from './pdf-preview.client';

// Loads the PDF preview's script (pdf.js and the page drawing, ./pdf-preview.client.ts) once, the first time a PDF
// preview opens; the shell names it and pdf.js's worker (console.page.ts). A failed load is tried again next time.

let loading: Promise<DrawPdf> | null = null;

export function pdfDrawer(): Promise<DrawPdf> {
  loading ??= new Promise<DrawPdf>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = document.body.dataset.pdfScript ?? '';
    script.dataset.worker = document.body.dataset.pdfWorker;
    script.onload = () => {
      const draw = window.gatherDrawPdf;
      if (draw) resolve(draw);
      else reject(new Error('The PDF viewer did not start'));
    };
    script.onerror = () => reject(new Error('The PDF viewer could not be loaded'));
    document.head.append(script);
  }).catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}
