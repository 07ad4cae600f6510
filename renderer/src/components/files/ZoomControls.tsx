// The viewers' zoom buttons (image and PDF): out, the scale now, in, and a fit
// button; a viewer may add its own (the image's 100%) as children.
import type { ReactNode } from 'react';

export function ZoomControls({ scale, zoomBy, isFit, onFit, fitLabel, children }: {
  scale: number;
  zoomBy: (step: 1 | -1) => void;
  isFit: boolean;
  onFit: () => void;
  fitLabel: string;
  children?: ReactNode;
}) {
  return (
    <div className="zoom-controls" role="group" aria-label="Zoom">
      <button type="button" className="button" onClick={() => zoomBy(-1)} aria-label="Zoom out">
        −
      </button>
      <span className="zoom-level" data-testid="zoom-level">
        {Math.round(scale * 100)}%
      </span>
      <button type="button" className="button" onClick={() => zoomBy(1)} aria-label="Zoom in">
        +
      </button>
      <button type="button" className="button" aria-pressed={isFit} onClick={onFit}>
        {fitLabel}
      </button>
      {children}
    </div>
  );
}
