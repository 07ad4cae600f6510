// Who is signed in, to which org, and the user's settings.
import { create } from 'zustand';
import type { FolderRootChange, SessionInfo, Settings, SignOutAnswer, Workspace } from '../../../shared/bridge.ts';
import { requireBridge } from '../bridge-client.ts';
import { messageOf } from '../api/api-client.ts';

interface SessionState {
  session: SessionInfo | null;
  settings: Settings | null;
  status: 'loading' | 'ready' | 'error';
  error: string | null;
  load(): Promise<void>;
  updateSettings(patch: Partial<Settings>): Promise<void>;
  /** A new folder root, the project folders moved there first (`moveFolders`) or left where they are. */
  changeFolderRoot(folderRoot: string, moveFolders: boolean): Promise<FolderRootChange>;
  /** The system's folder dialog (desktop only: session.canChooseFolder): the folder picked, or null. */
  chooseFolder(defaultPath: string): Promise<string | null>;
  signIn(request: { remoteUrl: string; username: string; password: string }): Promise<void>;
  /** Signs out, or answers the question to ask first (changes not yet on the remote) unless `confirm`. */
  signOut(confirm?: boolean): Promise<SignOutAnswer>;
  /** Opens "On this computer" or the signed-in org's workspace; the sign-in stays. */
  switchWorkspace(workspace: Workspace): Promise<void>;
  /** Keeps the session in step with the core; returns the unsubscribe. */
  follow(): () => void;
}

export const useSessionStore = create<SessionState>((set, get) => ({
  session: null,
  settings: null,
  status: 'loading',
  error: null,

  async load() {
    try {
      const bridge = requireBridge();
      const [session, settings] = await Promise.all([bridge.invoke('session.get'), bridge.invoke('settings.get')]);
      set({ session, settings, status: 'ready', error: null });
    } catch (error) {
      set({ status: 'error', error: messageOf(error) });
    }
  },

  async updateSettings(patch) {
    const settings = await requireBridge().invoke('settings.set', patch);
    set({ settings });
  },

  async changeFolderRoot(folderRoot, moveFolders) {
    const change = await requireBridge().invoke('settings.changeFolderRoot', { folderRoot, moveFolders });
    set({ settings: change.settings });
    return change;
  },

  async chooseFolder(defaultPath) {
    const choice = await requireBridge().invoke('settings.chooseFolder', { defaultPath });
    return choice.available ? choice.path : null;
  },

  async signIn(request) {
    const session = await requireBridge().invoke('auth.signIn', request);
    const settings = await requireBridge().invoke('settings.get');
    set({ session, settings });
  },

  async signOut(confirm) {
    const answer = await requireBridge().invoke('auth.signOut', confirm ? { confirm: true } : {});
    if (answer.outcome === 'signed_out') set({ session: answer.session });
    return answer;
  },

  async switchWorkspace(workspace) {
    const session = await requireBridge().invoke('workspace.switch', { workspace });
    set({ session });
  },

  follow() {
    return requireBridge().subscribe('session.changed', (session) => {
      set({ session });
      void get().load();
    });
  },
}));

/**
 * Which workspace the app shows now: the signed-in remote, or this computer's own
 * store. Both can hold org 1 with a project 4, so whatever outlives a switch (a draft,
 * a delete waiting in its undo window) is kept with this and used only where it was made.
 */
export function currentWorkspaceKey(): string {
  const session = useSessionStore.getState().session;
  return session?.mode === 'synced' && session.remoteUrl ? session.remoteUrl : 'on-this-computer';
}
