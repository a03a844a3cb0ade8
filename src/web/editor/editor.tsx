import {
  useCallback,
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import type { PDFDocumentProxy } from 'pdfjs-dist';
import {
  ANNOTATION_TYPES,
  clamp,
  FIELD_TYPES,
  NEW_BOX,
  DEFAULT_BOX,
  newKey,
  partLabel,
  partsOf,
  patchBody,
  round,
  type PageSize,
  type Part,
  type RestContract,
} from './layout';
import { drawPage, pageSizes } from '../shared/pdf-pages';

// The contract editor (docs/console.md): the PDF's pages drawn by pdf.js, each field and annotation a box over
// them to move and resize with the pointer or the keyboard, or to set exactly in the panel; saved whole with the
// link's token (editor.routes.ts), in the shapes of GET and PATCH /contracts/{id}.

type Api = { contract: string; file: string; renew: string };

/** The editor's own paths for the contract of this page's address, with its token. */
function apiOf(location: Location): Api {
  const id = location.pathname.split('/')[2];
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const query = `?token=${encodeURIComponent(token)}`;
  return {
    contract: `/contracts/${id}/edit/contract${query}`,
    file: `/contracts/${id}/edit/file${query}`,
    renew: `/app/contracts/${id}/edit`,
  };
}

class EditorError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The service's answer, or its refusal (`detail`, or each entry's place and message) thrown as an EditorError. */
async function answer(path: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'omit', ...init });
  } catch {
    throw new EditorError('Gather cannot be reached: check the connection, then try again.', 0);
  }
  if (response.ok) return response;
  const detail = ((await response.json().catch(() => ({}))) as { detail?: unknown }).detail;
  const message = Array.isArray(detail)
    ? detail
        .map((entry: { loc?: unknown[]; msg?: string }) => `${(entry.loc ?? []).slice(1).join('.')}: ${entry.msg}`)
        .join('; ')
    : typeof detail === 'string'
      ? detail
      : `Gather answered ${response.status}`;
  throw new EditorError(message, response.status);
}

const call = async <T,>(path: string, init?: RequestInit): Promise<T> =>
  (await answer(path, init)).json() as Promise<T>;

type Drag = { key: string; mode: 'move' | 'resize'; startX: number; startY: number; origin: Part };

function Box({
  part,
  scale,
  selected,
  onSelect,
  onDragStart,
  onKey,
}: {
  part: Part;
  scale: number;
  selected: boolean;
  onSelect: () => void;
  onDragStart: (event: PointerEvent<HTMLElement>, mode: Drag['mode']) => void;
  onKey: (event: KeyboardEvent<HTMLElement>) => void;
}) {
  const label = partLabel(part);
  return (
    <div
      className={`box ${part.kind}${selected ? ' selected' : ''}`}
      data-part={part.key}
      role="button"
      tabIndex={0}
      aria-pressed={selected}
      aria-label={`${part.kind === 'field' ? 'Field' : 'Annotation'} ${label}, page ${part.page}, ${Math.round(part.x)} by ${Math.round(part.y)} points from the top left`}
      style={{ left: part.x * scale, top: part.y * scale, width: part.width * scale, height: part.height * scale }}
      onPointerDown={(event) => {
        onSelect();
        onDragStart(event, 'move');
      }}
      onFocus={onSelect}
      onKeyDown={onKey}
    >
      <span className="box-label">{label}</span>
      <span
        className="handle"
        aria-hidden="true"
        onPointerDown={(event) => {
          event.stopPropagation();
          onSelect();
          onDragStart(event, 'resize');
        }}
      />
    </div>
  );
}

function PageView({
  pdf,
  number,
  scale,
  children,
}: {
  pdf: PDFDocumentProxy;
  number: number;
  scale: number;
  children: ReactNode;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState<PageSize | null>(null);
  useEffect(() => {
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    void pdf.getPage(number).then((page) => {
      if (cancelled || !canvas.current) return;
      const drawn = drawPage(page, canvas.current, scale);
      setSize(drawn.size);
      task = drawn.task;
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [pdf, number, scale]);
  return (
    <section className="pdf-page" aria-label={`Page ${number}`} data-page={number}>
      <div className="sheet" style={size ? { width: size.width, height: size.height } : undefined}>
        <canvas ref={canvas} aria-hidden="true" />
        {children}
      </div>
      <p className="page-number muted">Page {number}</p>
    </section>
  );
}

function NumberInput({ label, value, onValue }: { label: string; value: number; onValue: (value: number) => void }) {
  const [text, setText] = useState(String(round(value)));
  useEffect(() => setText(String(round(value))), [value]);
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        step="any"
        inputMode="decimal"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          const number = Number(event.target.value);
          if (event.target.value.trim() && Number.isFinite(number)) onValue(number);
        }}
      />
    </label>
  );
}

function Panel({
  part,
  pages,
  onChange,
  onDelete,
}: {
  part: Part;
  pages: PageSize[];
  onChange: (change: Partial<Part>) => void;
  onDelete: () => void;
}) {
  const types = part.kind === 'field' ? FIELD_TYPES : ANNOTATION_TYPES;
  return (
    <form className="panel card" aria-label="Selected box" onSubmit={(event) => event.preventDefault()}>
      <h2>{part.kind === 'field' ? 'Field' : 'Annotation'}</h2>
      <label className="field">
        <span>Type</span>
        <select value={part.type} onChange={(event) => onChange({ type: event.target.value })}>
          {types.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Page</span>
        <select value={part.page} onChange={(event) => onChange({ page: Number(event.target.value) })}>
          {pages.map((_size, index) => (
            <option key={index} value={index + 1}>
              {index + 1}
            </option>
          ))}
        </select>
      </label>
      <div className="pair">
        <NumberInput label="From left (pt)" value={part.x} onValue={(x) => onChange({ x })} />
        <NumberInput label="From top (pt)" value={part.y} onValue={(y) => onChange({ y })} />
        <NumberInput label="Width (pt)" value={part.width} onValue={(width) => onChange({ width })} />
        <NumberInput label="Height (pt)" value={part.height} onValue={(height) => onChange({ height })} />
      </div>
      <label className="field">
        <span>{part.kind === 'field' ? 'Placeholder' : 'Default value'}</span>
        <input value={part.text} onChange={(event) => onChange({ text: event.target.value })} />
      </label>
      {part.kind === 'field' && (
        <fieldset>
          <legend>Signer (a recipient, by e-mail)</legend>
          <label className="field">
            <span>Signer's e-mail</span>
            <input
              type="email"
              value={part.assignee.email ?? ''}
              onChange={(event) => onChange({ assignee: { ...part.assignee, email: event.target.value } })}
            />
          </label>
          <div className="pair">
            <label className="field">
              <span>First name</span>
              <input
                value={part.assignee.firstName ?? ''}
                onChange={(event) => onChange({ assignee: { ...part.assignee, firstName: event.target.value } })}
              />
            </label>
            <label className="field">
              <span>Last name</span>
              <input
                value={part.assignee.lastName ?? ''}
                onChange={(event) => onChange({ assignee: { ...part.assignee, lastName: event.target.value } })}
              />
            </label>
          </div>
        </fieldset>
      )}
      <button type="button" className="danger" onClick={onDelete}>
        Delete this {part.kind}
      </button>
    </form>
  );
}

/** Points the page is drawn at per CSS pixel: the pages fit the column, never above 1.5. */
function useScale(column: RefObject<HTMLElement | null>, widest: number): number {
  const [scale, setScale] = useState(1);
  useEffect(() => {
    const element = column.current;
    if (!element || !widest) return;
    const measure = () => setScale(Math.min(1.5, Math.max(0.3, (element.clientWidth - 2) / widest)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [column, widest]);
  return scale;
}

export function Editor({ pdfjs }: { pdfjs: typeof import('pdfjs-dist') }) {
  const api = useRef(apiOf(location)).current;
  const [contract, setContract] = useState<RestContract | null>(null);
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [pages, setPages] = useState<PageSize[]>([]);
  const [parts, setParts] = useState<Part[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<EditorError | null>(null);
  const [status, setStatus] = useState('');
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [addField, setAddField] = useState<string>('text');
  const [addAnnotation, setAddAnnotation] = useState<string>('string');
  const [addPage, setAddPage] = useState(1);
  const column = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const scale = useScale(column, Math.max(0, ...pages.map((p) => p.width)));

  useEffect(() => {
    void (async () => {
      try {
        const [read, bytes] = await Promise.all([
          call<RestContract>(api.contract),
          answer(api.file).then(async (response) => new Uint8Array(await response.arrayBuffer())),
        ]);
        const document = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
        const sizes = await pageSizes(document);
        setContract(read);
        setPages(sizes);
        setParts(partsOf(read, sizes));
        setPdf(document);
        globalThis.document.title = `${read.document.name} · Contract editor · Gather`;
      } catch (err) {
        setError(err instanceof EditorError ? err : new EditorError(`The PDF could not be shown: ${String(err)}`, 0));
      }
    })();
  }, [api, pdfjs]);

  const change = useCallback(
    (key: string, update: Partial<Part>) => {
      setParts((all) =>
        all.map((part) =>
          part.key === key ? clamp({ ...part, ...update }, pages[(update.page ?? part.page) - 1]) : part,
        ),
      );
      setDirty(true);
      setStatus('');
    },
    [pages],
  );

  const remove = (key: string) => {
    setParts((all) => all.filter((part) => part.key !== key));
    setSelected(null);
    setDirty(true);
    setStatus('Deleted: save to keep the change');
  };

  const add = (kind: Part['kind'], type: string) => {
    const size = pages[addPage - 1];
    const box = NEW_BOX[type] ?? DEFAULT_BOX;
    const onPage = parts.filter((p) => p.page === addPage).length;
    const part = clamp(
      {
        key: newKey(),
        kind,
        type,
        text: '',
        assignee: {},
        page: addPage,
        x: 72 + (onPage % 10) * 12,
        y: 72 + (onPage % 10) * 48,
        ...box,
        anchor: 'TOP_LEFT',
      },
      size,
    );
    setParts((all) => [...all, part]);
    setSelected(part.key);
    setDirty(true);
    setStatus(`${partLabel(part)} added on page ${addPage}`);
    // The new box takes the focus, so the arrow keys move it at once.
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-part="${part.key}"]`)?.focus());
  };

  const save = async () => {
    setBusy(true);
    setStatus('Saving…');
    try {
      const saved = await call<RestContract>(api.contract, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(patchBody(parts, pages)),
      });
      setContract(saved);
      setParts(partsOf(saved, pages));
      setSelected(null);
      setDirty(false);
      setError(null);
      setStatus(`Saved: ${saved.fields.length} field(s), ${saved.annotations.length} annotation(s)`);
    } catch (err) {
      setStatus('');
      setError(err as EditorError);
    } finally {
      setBusy(false);
    }
  };

  const onPointerMove = (event: PointerEvent<HTMLElement>) => {
    const current = drag.current;
    if (!current) return;
    const dx = (event.clientX - current.startX) / scale;
    const dy = (event.clientY - current.startY) / scale;
    const { origin } = current;
    change(
      current.key,
      current.mode === 'move'
        ? { x: origin.x + dx, y: origin.y + dy }
        : { width: origin.width + dx, height: origin.height + dy },
    );
  };

  const onKey = (part: Part) => (event: KeyboardEvent<HTMLElement>) => {
    const step = event.shiftKey ? 10 : 1;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      // Alt with an arrow resizes from the bottom right corner; an arrow alone moves.
      change(
        part.key,
        event.altKey
          ? { width: part.width + move[0], height: part.height + move[1] }
          : { x: part.x + move[0], y: part.y + move[1] },
      );
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      remove(part.key);
    }
  };

  if (error && !contract) return <Ended error={error} renew={api.renew} />;
  const chosen = parts.find((part) => part.key === selected) ?? null;
  return (
    <>
      <header className="top">
        <p className="brand">
          <a href="/app/contracts">Gather</a> <span>Contract editor</span>
        </p>
        <p
          className="status"
          role="status"
          id="save-status"
          data-state={dirty ? 'pending' : 'up'}
          hidden={!status && !dirty}
        >
          {status || 'Unsaved changes'}
        </p>
      </header>
      <main id="main" className="editor">
        <div className="editor-head">
          <h1>{contract?.document.name ?? 'Contract'}</h1>
          <p className="muted">
            Drag a box to move it, its corner to resize it; or focus it and use the arrow keys (Shift: 10 points, Alt:
            resize). Sizes and positions are in points from the page's top left corner.
          </p>
        </div>
        {error && (
          <div className="alert" role="alert">
            {error.message}
            {error.status === 410 && (
              <>
                {' '}
                <a href={api.renew}>Open the editor with a new link</a> (save again there).
              </>
            )}
          </div>
        )}
        <div className="toolbar" role="group" aria-label="Add and save">
          <label className="field">
            <span>On page</span>
            <select value={addPage} onChange={(event) => setAddPage(Number(event.target.value))} disabled={!pdf}>
              {pages.map((_size, index) => (
                <option key={index} value={index + 1}>
                  {index + 1}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Field type</span>
            <select value={addField} onChange={(event) => setAddField(event.target.value)}>
              {FIELD_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </label>
          <button type="button" className="secondary" disabled={!pdf} onClick={() => add('field', addField)}>
            Add field
          </button>
          <label className="field">
            <span>Annotation type</span>
            <select value={addAnnotation} onChange={(event) => setAddAnnotation(event.target.value)}>
              {ANNOTATION_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </label>
          <button type="button" className="secondary" disabled={!pdf} onClick={() => add('annotation', addAnnotation)}>
            Add annotation
          </button>
          <button type="button" disabled={!pdf || busy} onClick={() => void save()}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
        <div className="editor-body">
          <div
            className="pages"
            ref={column}
            onPointerMove={onPointerMove}
            onPointerUp={() => (drag.current = null)}
            onPointerCancel={() => (drag.current = null)}
          >
            {!pdf && !error && (
              <p className="boot" role="status">
                Drawing the pages…
              </p>
            )}
            {pdf &&
              pages.map((_size, index) => (
                <PageView key={index} pdf={pdf} number={index + 1} scale={scale}>
                  {parts
                    .filter((part) => part.page === index + 1)
                    .map((part) => (
                      <Box
                        key={part.key}
                        part={part}
                        scale={scale}
                        selected={part.key === selected}
                        onSelect={() => setSelected(part.key)}
                        onKey={onKey(part)}
                        onDragStart={(event, mode) => {
                          event.preventDefault();
                          (event.currentTarget.closest('.pages') as HTMLElement).setPointerCapture(event.pointerId);
                          drag.current = {
                            key: part.key,
                            mode,
                            startX: event.clientX,
                            startY: event.clientY,
                            origin: part,
                          };
                        }}
                      />
                    ))}
                </PageView>
              ))}
          </div>
          <aside className="side">
            {chosen ? (
              <Panel
                part={chosen}
                pages={pages}
                onChange={(update) => change(chosen.key, update)}
                onDelete={() => remove(chosen.key)}
              />
            ) : (
              <p className="muted">Choose a box to set its type, place, size and signer.</p>
            )}
            <h2>Boxes</h2>
            <ol className="part-list">
              {parts.map((part) => (
                <li key={part.key}>
                  <button type="button" className="link" onClick={() => setSelected(part.key)}>
                    {partLabel(part)}
                  </button>{' '}
                  <span className="muted">page {part.page}</span>
                </li>
              ))}
            </ol>
          </aside>
        </div>
      </main>
    </>
  );
}

function Ended({ error, renew }: { error: EditorError; renew: string }) {
  return (
    <main id="main" className="page ended">
      <h1>{error.status === 410 ? 'This editor link has expired' : 'The contract cannot be opened'}</h1>
      <p role="alert">{error.message}</p>
      <p>
        <a className="button" href={renew}>
          Open the editor with a new link
        </a>
      </p>
    </main>
  );
}
