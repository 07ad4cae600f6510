import './LoadingState.css';

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/**
 * A still line, no spinner: where the page's main thread is busy with what is
 * loading (a design decoding, a view's code arriving), a spinner's frames cost it
 * more than the work does (issue 36: the page answers within 200 ms).
 */
export function StillLoading({ label }: { label: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span>{label}</span>
    </div>
  );
}
