// Work that exists only on this computer (the embedded store), offered to the
// signed-in org after a sign-in: send all or some, or keep it in the local
// workspace (docs/sync.md, "Local work and signing in"). The rule of what counts
// and what was sent lives in the main process (main/core/local-work.ts).
import { create } from 'zustand';
import type { LocalWorkOffer, LocalWorkProgress, LocalWorkSendResult } from '../../../shared/bridge.ts';
import { requireBridge } from '../bridge-client.ts';
import { messageOf } from '../api/api-client.ts';

interface LocalWorkState {
  offer: LocalWorkOffer | null;
  isDialogOpen: boolean;
  isBusy: boolean;
  progress: LocalWorkProgress | null;
  /** The last send's answer: what went up and what did not, in sentences. */
  lastResult: Omit<LocalWorkSendResult, 'offer'> | null;
  error: string | null;
  /** Reads the offer again; with `open`, shows the dialog when something waits and the user has not said keep. */
  load(options?: { open?: boolean }): Promise<void>;
  openDialog(): void;
  closeDialog(): void;
  send(keys: string[]): Promise<void>;
  keep(): Promise<void>;
  follow(): () => void;
}

export const useLocalWorkStore = create<LocalWorkState>((set, get) => ({
  offer: null,
  isDialogOpen: false,
  isBusy: false,
  progress: null,
  lastResult: null,
  error: null,

  async load(options = {}) {
    try {
      const offer = await requireBridge().invoke('localWork.list');
      set({ offer, error: null, isDialogOpen: get().isDialogOpen || (Boolean(options.open) && offer.isOpen) });
    } catch (error) {
      set({ error: messageOf(error) });
    }
  },

  openDialog() {
    set({ isDialogOpen: true, lastResult: null, error: null });
  },

  closeDialog() {
    if (!get().isBusy) set({ isDialogOpen: false, lastResult: null, progress: null });
  },

  async send(keys) {
    set({ isBusy: true, error: null, lastResult: null, progress: { done: 0, total: keys.length, title: null } });
    try {
      const { offer, ...result } = await requireBridge().invoke('localWork.send', { keys });
      set({ offer, lastResult: result });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ isBusy: false, progress: null });
    }
  },

  async keep() {
    set({ isBusy: true, error: null });
    try {
      const offer = await requireBridge().invoke('localWork.keep');
      set({ offer, isDialogOpen: false, lastResult: null });
    } catch (error) {
      set({ error: messageOf(error) });
    } finally {
      set({ isBusy: false });
    }
  },

  follow() {
    return requireBridge().subscribe('localWork.progress', (progress) => {
      if (get().isBusy) set({ progress });
    });
  },
}));
