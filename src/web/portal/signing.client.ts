import * as pdfjs from 'pdfjs-dist';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import { contextOf, text, type ContractField, type PortalBoot } from '../../modules/portal/portal.view';
import { boxOf, type PageSize } from '../shared/layout';
import { drawAtWidth, pageSizes } from '../shared/pdf-pages';

// The signing view (bundled apart, portal.assets.ts signingAssets; loaded by portal.client.ts where a contract is
// to be signed): each page of the contract drawn by pdf.js, and each of the recipient's fields at its place on it.
// The server-rendered inputs themselves move into their boxes, so what is sent is what was there before; the
// list stays where the PDF cannot be shown. Boxes are placed in percent of their page: they follow its width.

const worker = (document.currentScript as HTMLScriptElement | null)?.dataset.worker;
if (worker) pdfjs.GlobalWorkerOptions.workerPort = new Worker(worker, { type: 'module' });

const boot = JSON.parse(document.getElementById('portal-boot')!.textContent!) as PortalBoot;
const ctx = contextOf(boot);

type Contract = { pdf: PDFDocumentProxy; sizes: PageSize[] };
/** Each PDF (a contract to sign, a signed copy), read once a page: a re-render draws it again without fetching it. */
const contracts = new Map<string, Promise<Contract>>();

function contractOf(url: string): Promise<Contract> {
  let contract = contracts.get(url);
  if (!contract) {
    contract = (async () => {
      const response = await fetch(url, { credentials: 'same-origin' });
      // A DOC or DOCX contract, or a refusal: the fields stay a list.
      if (!response.ok || response.headers.get('content-type')?.split(';')[0] !== 'application/pdf')
        throw new Error(`The contract could not be read: ${response.status}`);
      const data = new Uint8Array(await response.arrayBuffer());
      const pdf = await pdfjs.getDocument({ data, isEvalSupported: false }).promise;
      return { pdf, sizes: await pageSizes(pdf) };
    })();
    contracts.set(url, contract);
  }
  return contract;
}

const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;
const SIGNED_BY_MARK = new Set(['signature', 'initials']);

/** A signature or initials field: a button that takes the recipient to the signature step. */
function markButton(itemId: string, field: ContractField): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'sign-mark';
  button.textContent = text(ctx, field.type.toLowerCase() === 'initials' ? 'initialHere' : 'signHere', {
    name: field.placeholder || field.id,
  });
  button.addEventListener('click', () => {
    const step = document.getElementById(`sig-${itemId}-step`);
    if (!step) return;
    step.scrollIntoView({ block: 'center' });
    const typed = step.querySelector<HTMLElement>('.sig-typed:not([hidden]) input') ?? step;
    typed.focus({ preventScroll: true });
  });
  return button;
}

/** Draws the holder's pages at its width, and sizes each box's text for it. */
function draw(holder: HTMLElement, contract: Contract): void {
  const sections = [...holder.querySelectorAll<HTMLElement>('.sign-page')];
  drawAtWidth(
    holder,
    contract.pdf,
    contract.sizes,
    (index) => sections[index].querySelector('canvas')!,
    (index, scale) => {
      // Text as tall as its box allows, read at any width.
      sections[index].querySelectorAll<HTMLElement>('.sign-box').forEach((box) => {
        box.style.fontSize = `${Math.max(9, Math.min(16, Number(box.dataset.height) * scale * 0.6))}px`;
      });
    },
  );
}

async function show(holder: HTMLElement): Promise<void> {
  holder.dataset.shown = 'true';
  // None around a signed copy, which has no fields.
  const form = holder.closest('form');
  const itemId = holder.dataset.item!;
  const fields = JSON.parse(holder.dataset.fields!) as ContractField[];
  let contract: Contract;
  try {
    // A signed item names its signed copy; else the contract to sign.
    contract = await contractOf(holder.dataset.src ?? `${boot.api}/items/${encodeURIComponent(itemId)}/contract`);
  } catch {
    return;
  }
  if (!holder.isConnected) return;
  const sections = contract.sizes.map((size, index) => {
    const section = document.createElement('section');
    section.className = 'sign-page';
    section.dataset.page = String(index + 1);
    section.setAttribute('aria-label', text(ctx, 'contractPage', { number: index + 1 }));
    section.style.aspectRatio = `${size.width} / ${size.height}`;
    const canvas = document.createElement('canvas');
    canvas.setAttribute('aria-hidden', 'true');
    section.append(canvas);
    holder.append(section);
    return section;
  });
  // Placed in reading order, page then top to bottom then left to right: the tab order follows.
  const placed = fields
    .map((field) => ({ field, box: boxOf(field.layout, contract.sizes) }))
    .sort((a, b) => a.box.page - b.box.page || a.box.y - b.box.y || a.box.x - b.box.x);
  for (const { field, box } of placed) {
    const size = contract.sizes[box.page - 1];
    const place = document.createElement('div');
    place.className = `sign-box sign-${field.type.toLowerCase()}`;
    place.dataset.boxFor = field.id;
    place.dataset.height = String(box.height);
    place.style.left = percent(box.x, size.width);
    place.style.top = percent(box.y, size.height);
    place.style.width = percent(box.width, size.width);
    place.style.height = percent(box.height, size.height);
    if (SIGNED_BY_MARK.has(field.type.toLowerCase())) place.append(markButton(itemId, field));
    else {
      const input = form?.querySelector<HTMLElement>(`[data-box="${CSS.escape(field.id)}"]`);
      if (!input) continue;
      const control = input.querySelector<HTMLInputElement>('input')!;
      if (control.type !== 'checkbox' && control.type !== 'radio') control.placeholder = field.placeholder || field.id;
      place.append(input);
    }
    sections[box.page - 1].append(place);
  }
  form?.querySelector<HTMLElement>('.sign-fields')?.setAttribute('hidden', '');
  holder.hidden = false;
  draw(holder, contract);
}

const showAll = () =>
  document.querySelectorAll<HTMLElement>('.sign-pages:not([data-shown])').forEach((holder) => void show(holder));
document.addEventListener('portal:rendered', showAll);
showAll();
