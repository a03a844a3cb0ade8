import * as pdfjs from 'pdfjs-dist';
import { createRoot } from 'react-dom/client';
import { Editor } from './editor';

// The contract editor (docs/console.md), bundled apart from the console with pdf.js; pdf.js reads the PDF in its
// worker, a module served by Gather whose address the page names (no blob: worker, no CDN).
const worker = document.body.dataset.worker;
if (worker) pdfjs.GlobalWorkerOptions.workerPort = new Worker(worker, { type: 'module' });
const root = document.getElementById('root');
if (root) createRoot(root).render(<Editor pdfjs={pdfjs} />);
