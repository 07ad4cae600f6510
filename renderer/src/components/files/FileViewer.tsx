// The file viewer over the Files tab (docs/files.md "Thumbnails and viewers"): an
// image viewer (zoom, EXIF date and place), the PDF viewer (PdfViewer.tsx), or for
// other types their icon, size and "Open with the system". Left and right arrows
// (and the buttons) walk the list as it is shown; Escape closes. Which viewer is
// decided by the contents' real type, as the /media/ route answers it.
import { useCallback, useEffect, useRef, useState, type WheelEvent } from 'react';
import type { PhotoInfo } from '../../../../shared/bridge.ts';
import { PHOTO_FAR_FROM_SITE_M, formatDistance, haversineMeters } from '../../../../shared/geo.ts';
import type { PrivateFileJson } from '../../../../shared/schemas/private-file.ts';
import type { ProjectDetailJson } from '../../../../shared/schemas/project.ts';
import { isDesktop, requireBridge } from '../../bridge-client.ts';
import { formatBytes, formatDateTime } from '../../format.ts';
import { fileContents, hasThumbnail } from '../../media.ts';
import { messageOf } from '../../api/api-client.ts';
import { useFilesStore } from '../../stores/files-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { neighbourOf, useViewerStore } from '../../stores/viewer-store.ts';
import { FileIcon } from './FileThumbnail.tsx';
import { PdfViewer } from './PdfViewer.tsx';
import { ZoomControls } from './ZoomControls.tsx';
import './file-preview.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'image'; url: string }
  | { state: 'pdf'; bytes: ArrayBuffer }
  | { state: 'other'; reason: string }
  | { state: 'error'; message: string };

async function runDesktopAction(channel: 'files.open' | 'files.showInFolder', file: PrivateFileJson): Promise<void> {
  try {
    const answer = await requireBridge().invoke(channel, { fileId: file.id });
    if ('opened' in answer && !answer.opened) useUiStore.getState().toast(`No app on this computer opens ${file.title}. It is saved at ${answer.path}.`, 'error');
  } catch (error) {
    useUiStore.getState().toast(messageOf(error), 'error');
  }
}

/** Open and Show in folder on the desktop; Download in browser mode, where the system cannot be asked. */
export function SystemActions({ file, primary = false }: { file: PrivateFileJson; primary?: boolean }) {
  if (!isDesktop) {
    return (
      <button type="button" className={primary ? 'button button-primary' : 'button'} onClick={() => void useFilesStore.getState().download(file)}>
        Download
      </button>
    );
  }
  return (
    <>
      <button type="button" className={primary ? 'button button-primary' : 'button'} onClick={() => void runDesktopAction('files.open', file)}>
        {primary ? 'Open with the system' : 'Open'}
      </button>
      <button type="button" className="button" onClick={() => void runDesktopAction('files.showInFolder', file)}>
        Show in folder
      </button>
    </>
  );
}

export function FileViewer({ project }: { project: Pick<ProjectDetailJson, 'lat' | 'lon'> }) {
  const open = useViewerStore((state) => state.open);
  const files = useFilesStore((state) => state.files);
  const file = open ? files.find((candidate) => candidate.id === open.fileId) : undefined;
  const { show, close } = useViewerStore.getState();
  // What was read, for which file: another file shows "loading" until its own contents arrive.
  const [read, setRead] = useState<{ fileId: number; loaded: Loaded } | null>(null);
  const loaded: Loaded = file && read?.fileId === file.id ? read.loaded : { state: 'loading' };
  const dialog = useRef<HTMLDivElement>(null);

  const step = useCallback(
    (direction: 1 | -1) => {
      const current = useViewerStore.getState().open;
      const next = current && neighbourOf(current, direction);
      if (current && next !== null) show(next, current.ids);
    },
    [show],
  );

  // The file left the list (deleted, moved elsewhere): nothing to show.
  useEffect(() => {
    if (open && !file && files.length > 0) close();
  }, [open, file, files.length, close]);

  useEffect(() => {
    if (!file) return;
    let isCurrent = true;
    let url: string | null = null;
    const setLoaded = (next: Loaded) => setRead({ fileId: file.id, loaded: next });
    // Contents the main process already found to be neither image nor PDF (no thumbnail) are not fetched.
    const isViewable = file.file_hash ? hasThumbnail(file.file_hash) : Promise.resolve<'unknown'>('unknown');
    void isViewable.then(async (viewable) => {
      if (viewable === false) return { error: 'not viewable', status: 415 };
      return fileContents(file.id, file.file_hash);
    }).then(
      async (result) => {
        if (!isCurrent) return;
        if ('error' in result) {
          setLoaded(result.status === 415 ? { state: 'other', reason: result.error } : { state: 'error', message: result.error });
        } else if (result.type === 'application/pdf') {
          const bytes = await result.blob.arrayBuffer();
          if (isCurrent) setLoaded({ state: 'pdf', bytes });
        } else {
          url = URL.createObjectURL(result.blob);
          setLoaded({ state: 'image', url });
        }
      },
      (error: unknown) => isCurrent && setLoaded({ state: 'error', message: `${file.title} could not be read: ${messageOf(error)}` }),
    );
    return () => {
      isCurrent = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [file?.id, file?.file_hash]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!open) return;
    const previousFocus = document.activeElement as HTMLElement | null;
    dialog.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
      } else if (event.key === 'ArrowRight' && !event.altKey) {
        event.preventDefault();
        step(1);
      } else if (event.key === 'ArrowLeft' && !event.altKey) {
        event.preventDefault();
        step(-1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      previousFocus?.focus?.();
    };
  }, [open !== null]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!open || !file) return null;
  const position = open.ids.indexOf(open.fileId);
  const hasNeighbours = open.ids.length > 1;

  return (
    <div className="viewer-backdrop" onClick={(event) => event.target === event.currentTarget && close()}>
      <div className="viewer" role="dialog" aria-modal="true" aria-label={`Viewing ${file.title}`} tabIndex={-1} ref={dialog} data-testid="file-viewer" data-kind={loaded.state}>
        <header className="viewer-header">
          <div className="viewer-title">
            <h2 title={file.title}>{file.title}</h2>
            <span className="muted">
              {formatBytes(file.filesize)}
              {hasNeighbours && ` · ${position + 1} of ${open.ids.length}`}
            </span>
          </div>
          <div className="viewer-actions">
            {hasNeighbours && (
              <>
                <button type="button" className="button" onClick={() => step(-1)} aria-label="Previous file" title="Previous file (←)">
                  ‹
                </button>
                <button type="button" className="button" onClick={() => step(1)} aria-label="Next file" title="Next file (→)">
                  ›
                </button>
              </>
            )}
            {loaded.state !== 'other' && <SystemActions file={file} />}
            <button type="button" className="button" onClick={close} aria-label="Close viewer" title="Close (Esc)">
              ✕
            </button>
          </div>
        </header>
        <div className="viewer-body">
          {loaded.state === 'loading' && <p className="viewer-message muted">Opening {file.title}…</p>}
          {loaded.state === 'error' && (
            <div className="viewer-message" role="alert">
              <p>{loaded.message}</p>
              <SystemActions file={file} />
            </div>
          )}
          {loaded.state === 'other' && (
            <div className="viewer-other" data-testid="viewer-other">
              <FileIcon file={file} size={96} />
              <p>
                <strong>{file.title}</strong>
                <br />
                <span className="muted">
                  {formatBytes(file.filesize)} · changed {formatDateTime(file.modified_date)}
                </span>
              </p>
              <p className="muted">SolarDesk shows images and PDFs itself. {isDesktop ? 'Open this one with the app your system uses for it.' : 'Download it to open it with the app your system uses for it.'}</p>
              <div className="dialog-actions">
                <SystemActions file={file} primary />
              </div>
            </div>
          )}
          {loaded.state === 'image' && <ImageView key={file.id} url={loaded.url} file={file} project={project} />}
          {loaded.state === 'pdf' && <PdfViewer key={file.id} bytes={loaded.bytes} title={file.title} />}
        </div>
      </div>
    </div>
  );
}

const ZOOM_STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8];

function ImageView({ url, file, project }: { url: string; file: PrivateFileJson; project: Pick<ProjectDetailJson, 'lat' | 'lon'> }) {
  /** 'fit': the whole image in the window; a number: that many screen pixels per image pixel. */
  const [zoom, setZoom] = useState<'fit' | number>('fit');
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  const [fitScale, setFitScale] = useState(1);
  const [info, setInfo] = useState<PhotoInfo | null>(null);
  const stage = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let isCurrent = true;
    requireBridge()
      .invoke('files.photoInfo', { fileId: file.id })
      .then((answer) => isCurrent && setInfo(answer), () => isCurrent && setInfo(null));
    return () => {
      isCurrent = false;
    };
  }, [file.id]);

  // The scale "fit" means, for the buttons that step from it.
  useEffect(() => {
    if (!natural || !stage.current) return;
    const measure = () => {
      const box = stage.current!.getBoundingClientRect();
      setFitScale(Math.min(1, box.width / natural.width, box.height / natural.height));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(stage.current);
    return () => observer.disconnect();
  }, [natural]);

  const scale = zoom === 'fit' ? fitScale : zoom;
  const zoomBy = (direction: 1 | -1) => {
    const next = direction > 0 ? ZOOM_STEPS.find((candidate) => candidate > scale + 1e-3) : [...ZOOM_STEPS].reverse().find((candidate) => candidate < scale - 1e-3);
    if (next !== undefined) setZoom(next);
  };
  const onWheel = (event: WheelEvent<HTMLDivElement>) => {
    if (event.deltaY === 0) return;
    zoomBy(event.deltaY < 0 ? 1 : -1);
  };

  const hasPlace = info && info.latitude !== null && info.longitude !== null;
  const fromSite =
    hasPlace && project.lat !== null && project.lon !== null ? haversineMeters({ lat: info.latitude!, lon: info.longitude! }, { lat: project.lat, lon: project.lon }) : null;

  return (
    <div className="image-view">
      <div className="image-stage" ref={stage} onWheel={onWheel} data-zoom={zoom === 'fit' ? 'fit' : String(zoom)}>
        <img
          src={url}
          alt={file.title}
          data-testid="viewer-image"
          className={zoom === 'fit' ? 'is-fit' : undefined}
          style={zoom === 'fit' || !natural ? undefined : { width: natural.width * zoom, height: natural.height * zoom }}
          onLoad={(event) => setNatural({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })}
          draggable={false}
        />
      </div>
      <footer className="image-footer">
        <ZoomControls scale={scale} zoomBy={zoomBy} isFit={zoom === 'fit'} onFit={() => setZoom('fit')} fitLabel="Fit">
          <button type="button" className="button" aria-pressed={zoom === 1} onClick={() => setZoom(1)}>
            100%
          </button>
        </ZoomControls>
        <dl className="photo-facts" data-testid="photo-facts">
          {natural && (
            <div>
              <dt>Size</dt>
              <dd>
                {natural.width} × {natural.height}
              </dd>
            </div>
          )}
          <div>
            <dt>Taken</dt>
            <dd>{info?.takenAt ? formatDateTime(info.takenAt) : info?.isHere === false ? 'not on this computer' : 'not recorded'}</dd>
          </div>
          <div>
            <dt>Place</dt>
            <dd>
              {hasPlace ? `${info.latitude!.toFixed(5)}, ${info.longitude!.toFixed(5)}` : 'not recorded'}
              {fromSite !== null && <span className={fromSite > PHOTO_FAR_FROM_SITE_M ? 'far-from-site' : 'muted'}> · {formatDistance(fromSite)} from the site</span>}
            </dd>
          </div>
        </dl>
      </footer>
    </div>
  );
}
