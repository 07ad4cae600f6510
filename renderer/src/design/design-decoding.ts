// Decodes project designs in a Web Worker (design-decode.worker.ts), so the page
// keeps answering while a design is inflated and parsed. The last few decoded
// designs are kept by their encoded text: going back to a project's Design tab, or
// a re-render, decodes nothing.
import { useEffect, useState } from 'react';
import type { ProjectDesign } from '../../../shared/design-types.ts';

export interface DesignDecodeRequest {
  id: number;
  encoded: string;
}
export type DesignDecodeAnswer = { id: number; design: ProjectDesign } | { id: number; error: string };

export type DecodedDesign = { design: ProjectDesign } | { error: string };
export type DesignState = DecodedDesign | { isDecoding: true } | null;

const KEPT_DESIGNS = 4;
const kept = new Map<string, Promise<DecodedDesign>>();
const waiting = new Map<number, (answer: DecodedDesign) => void>();
let worker: Worker | null = null;
let nextId = 1;

function designWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL('./design-decode.worker.ts', import.meta.url), { type: 'module' });
  started.onmessage = (event: MessageEvent<DesignDecodeAnswer>) => {
    const { id, ...answer } = event.data;
    waiting.get(id)?.(answer);
    waiting.delete(id);
  };
  // A worker that fails to load or crashes answers every design waiting with the reason; the next design starts a new one.
  started.onerror = (event) => {
    event.preventDefault();
    for (const resolve of waiting.values()) resolve({ error: `The design could not be decoded: ${event.message || 'its decoder stopped'}.` });
    waiting.clear();
    kept.clear();
    started.terminate();
    if (worker === started) worker = null;
  };
  return (worker = started);
}

export function decodeDesignOffThread(encoded: string): Promise<DecodedDesign> {
  const known = kept.get(encoded);
  if (known) return known;
  const id = nextId++;
  const decoded = new Promise<DecodedDesign>((resolve) => {
    waiting.set(id, resolve);
    designWorker().postMessage({ id, encoded } satisfies DesignDecodeRequest);
  });
  kept.set(encoded, decoded);
  while (kept.size > KEPT_DESIGNS) kept.delete(kept.keys().next().value!);
  return decoded;
}

/** The project's design: null when it has none, `{isDecoding}` while the worker decodes it. */
export function useDecodedDesign(encoded: string | null | undefined): DesignState {
  const [state, setState] = useState<{ encoded: string; decoded: DecodedDesign } | null>(null);
  useEffect(() => {
    if (!encoded) return;
    let isCurrent = true;
    void decodeDesignOffThread(encoded).then((decoded) => {
      if (isCurrent) setState({ encoded, decoded });
    });
    return () => {
      isCurrent = false;
    };
  }, [encoded]);
  if (!encoded) return null;
  return state?.encoded === encoded ? state.decoded : { isDecoding: true };
}
