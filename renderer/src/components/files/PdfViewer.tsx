// The in-app PDF viewer: pdf.js (pdfjs-dist) in the page, its parser in a worker
// (bundled by Vite, loaded from the app itself as the CSP wants), the page on a
// canvas at the screen's pixel density, page thumbnails down the side, zoom and
// page navigation (buttons, Page Up/Down, ↑/↓). pdf.js is loaded only when a PDF
// is opened, so the app's first screen does not carry it.
import { useEffect, useRef, useState } from 'react';
import type * as PdfJsModule from 'pdfjs-dist';
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import { ZoomControls } from './ZoomControls.tsx';

type PdfJs = typeof PdfJsModule;
let pdfjs: Promise<PdfJs> | null = null;
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]).then(([library, worker]) => {
    library.GlobalWorkerOptions.workerSrc = worker.default;
    return library;
  });
  return pdfjs;
}

/** Pages given a thumbnail in the side strip; a longer PDF's later pages are reached by number. */
const MAX_THUMBNAIL_PAGES = 200;
const THUMBNAIL_WIDTH = 96;
const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];

export function PdfViewer({ bytes, title }: { bytes: ArrayBuffer; title: string }) {
  const [document, setDocument] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  /** 'fit': the page's width fills the viewer; a number: CSS pixels per PDF point. */
  const [zoom, setZoom] = useState<'fit' | number>('fit');
  const [fitScale, setFitScale] = useState(1);
  const stage = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    let isCurrent = true;
    let destroy: (() => Promise<void>) | null = null;
    void loadPdfJs()
      .then((library) => {
        const task = library.getDocument({ data: new Uint8Array(bytes.slice(0)) });
        destroy = () => task.destroy();
        return task.promise;
      })
      .then(
        (opened) => isCurrent && setDocument(opened),
        (reason: unknown) => isCurrent && setError(`${title} could not be shown: ${(reason as Error).message}. Download it to open it with another app.`),
      );
    return () => {
      isCurrent = false;
      void destroy?.();
    };
  }, [bytes, title]);

  // The scale at which the current page's width fills the stage.
  useEffect(() => {
    if (!document || !stage.current) return;
    let isCurrent = true;
    const measure = async () => {
      const viewport = (await document.getPage(page)).getViewport({ scale: 1 });
      if (isCurrent && stage.current) setFitScale(Math.max(0.1, (stage.current.clientWidth - 32) / viewport.width));
    };
    void measure();
    const observer = new ResizeObserver(() => void measure());
    observer.observe(stage.current);
    return () => {
      isCurrent = false;
      observer.disconnect();
    };
  }, [document, page]);

  const scale = zoom === 'fit' ? fitScale : zoom;

  useEffect(() => {
    if (!document || !canvas.current) return;
    let task: RenderTask | null = null;
    let isCurrent = true;
    void document.getPage(page).then((pdfPage) => {
      if (!isCurrent || !canvas.current) return;
      const ratio = window.devicePixelRatio || 1;
      const viewport = pdfPage.getViewport({ scale: scale * ratio });
      const target = canvas.current;
      target.width = Math.floor(viewport.width);
      target.height = Math.floor(viewport.height);
      target.style.width = `${Math.floor(viewport.width / ratio)}px`;
      target.style.height = `${Math.floor(viewport.height / ratio)}px`;
      task = pdfPage.render({ canvas: target, viewport, background: '#ffffff' });
      task.promise.then(
        () => isCurrent && target.setAttribute('data-rendered-page', String(page)),
        () => {},
      );
    });
    return () => {
      isCurrent = false;
      task?.cancel();
    };
  }, [document, page, scale]);

  const pageCount = document?.numPages ?? 0;
  const go = (next: number) => setPage((current) => (pageCount ? Math.min(pageCount, Math.max(1, next)) : current));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // A field beside the viewer (the Documents menu's pickers) keeps its own arrow keys.
      if (event.target instanceof HTMLElement && event.target.closest('select, input, textarea')) return;
      if (event.key === 'PageDown' || event.key === 'ArrowDown') {
        event.preventDefault();
        setPage((current) => Math.min(pageCount || 1, current + 1));
      } else if (event.key === 'PageUp' || event.key === 'ArrowUp') {
        event.preventDefault();
        setPage((current) => Math.max(1, current - 1));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [pageCount]);

  const zoomBy = (direction: 1 | -1) => {
    const next = direction > 0 ? ZOOM_STEPS.find((candidate) => candidate > scale + 1e-3) : [...ZOOM_STEPS].reverse().find((candidate) => candidate < scale - 1e-3);
    if (next !== undefined) setZoom(next);
  };

  if (error) return <p className="viewer-message" role="alert">{error}</p>;
  if (!document) return <p className="viewer-message muted">Reading {title}…</p>;
  return (
    <div className="pdf-view" data-testid="pdf-viewer" data-pages={pageCount}>
      <nav className="pdf-thumbnails" aria-label="Pages">
        {Array.from({ length: Math.min(pageCount, MAX_THUMBNAIL_PAGES) }, (_, index) => (
          <PageThumbnail key={index + 1} document={document} number={index + 1} isCurrent={page === index + 1} onPick={() => go(index + 1)} />
        ))}
      </nav>
      <div className="pdf-main">
        <div className="pdf-stage" ref={stage}>
          <canvas ref={canvas} data-testid="pdf-page" aria-label={`Page ${page} of ${pageCount}`} />
        </div>
        <footer className="image-footer">
          <div className="zoom-controls" role="group" aria-label="Pages">
            <button type="button" className="button" onClick={() => go(page - 1)} disabled={page <= 1} aria-label="Previous page">
              ↑
            </button>
            <span className="zoom-level" data-testid="pdf-page-number">
              Page {page} of {pageCount}
            </span>
            <button type="button" className="button" onClick={() => go(page + 1)} disabled={page >= pageCount} aria-label="Next page">
              ↓
            </button>
          </div>
          <ZoomControls scale={scale} zoomBy={zoomBy} isFit={zoom === 'fit'} onFit={() => setZoom('fit')} fitLabel="Fit width" />
        </footer>
      </div>
    </div>
  );
}

function PageThumbnail({ document, number, isCurrent, onPick }: { document: PDFDocumentProxy; number: number; isCurrent: boolean; onPick: () => void }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  // Drawn once it scrolls near the strip's view: a long PDF does not draw every page up front.
  useEffect(() => {
    if (!button.current) return;
    let task: RenderTask | null = null;
    let isDrawn = false;
    const observer = new IntersectionObserver((entries) => {
      if (isDrawn || !entries.some((entry) => entry.isIntersecting)) return;
      isDrawn = true;
      void document.getPage(number).then((page) => {
        const target = canvas.current;
        if (!target) return;
        const ratio = window.devicePixelRatio || 1;
        const natural = page.getViewport({ scale: 1 });
        const viewport = page.getViewport({ scale: (THUMBNAIL_WIDTH / natural.width) * ratio });
        target.width = Math.floor(viewport.width);
        target.height = Math.floor(viewport.height);
        target.style.width = `${THUMBNAIL_WIDTH}px`;
        target.style.height = `${Math.floor(viewport.height / ratio)}px`;
        task = page.render({ canvas: target, viewport, background: '#ffffff' });
        task.promise.catch(() => {});
      });
    });
    observer.observe(button.current);
    return () => {
      observer.disconnect();
      task?.cancel();
    };
  }, [document, number]);

  useEffect(() => {
    if (isCurrent) button.current?.scrollIntoView?.({ block: 'nearest' });
  }, [isCurrent]);

  return (
    <button type="button" ref={button} className={`pdf-thumbnail${isCurrent ? ' is-current' : ''}`} onClick={onPick} aria-current={isCurrent ? 'page' : undefined} aria-label={`Page ${number}`}>
      <canvas ref={canvas} />
      <span>{number}</span>
    </button>
  );
}
