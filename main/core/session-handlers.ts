// The bridge channels of the session: who is signed in where (session.get), signing
// in to a remote and out again, and switching between the signed-in org's workspace
// and the one on this computer. Each changes settings or local-work state and swaps
// the backend (core-runtime.ts).
import { BridgeError, type BridgeHandlers, type SignOutAnswer } from '../../shared/bridge.ts';
import { describeSignInFailure, describeUnsentChanges } from '../sync/remote-errors.ts';
import type { CoreRuntime } from './core-runtime.ts';
import { readLocalWorkState, updateLocalWorkState } from './local-work.ts';

type SessionChannels = 'session.get' | 'auth.signIn' | 'auth.signOut' | 'workspace.switch';

export function sessionHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, SessionChannels> {
  const { options, events } = runtime;
  return {
    'session.get': () => runtime.session(),

    'auth.signIn': async ({ remoteUrl, username, password, orgId: wantedOrg }) => {
      if (!options.syncAgent) throw new BridgeError('This SolarDesk was started without the sync agent, so it cannot sign in to a remote.');
      const before = options.settings.read();
      const wasSignedIn = runtime.isSignedIn(before);
      const url = remoteUrl.replace(/\/+$/, '');
      options.settings.write({ ...before, remoteUrl: url, username, orgId: wantedOrg ?? null });
      try {
        await runtime.restartBackend(password);
      } catch (error) {
        // Back to what ran before, and say why the sign-in failed: the user's to fix, not the app's fault.
        options.settings.write(before);
        if (!wasSignedIn) options.syncAgent.forgetSignIn(options.dataDir);
        await runtime.restartBackend();
        throw new BridgeError(describeSignInFailure(url, (error as Error).message), { code: 'sign_in_failed' });
      }
      const identity = (await runtime.current()).identity();
      updateLocalWorkState(options.dataDir, (state) => {
        state.workspace = 'remote';
        state.signedIn = { remoteUrl: url, orgId: identity.orgId, orgName: identity.orgName };
      });
      // The org's name is known now: tell the views again (the restart told them before it was saved).
      const info = await runtime.session();
      events.emit('session.changed', info);
      return info;
    },

    'auth.signOut': async (request): Promise<SignOutAnswer> => {
      const settings = options.settings.read();
      if (!request?.confirm && runtime.isSignedIn(settings) && settings.remoteUrl) {
        const unsent = await runtime.unsentChanges();
        if (unsent.pending > 0 || unsent.heldDeletes > 0) {
          return { outcome: 'needs_confirmation', ...unsent, remoteUrl: settings.remoteUrl, question: describeUnsentChanges(settings.remoteUrl, unsent) };
        }
      }
      // The URL and username stay, so signing in again only needs the password; the replica stays too.
      options.syncAgent?.forgetSignIn(options.dataDir);
      updateLocalWorkState(options.dataDir, (state) => void (state.workspace = 'remote'));
      runtime.forgetUnsentChanges();
      await runtime.restartBackend();
      return { outcome: 'signed_out', session: await runtime.session() };
    },

    'workspace.switch': async ({ workspace }) => {
      if (!runtime.isSignedIn(options.settings.read())) {
        throw new BridgeError('There is only the workspace on this computer until you sign in to a remote (Sync → Sign in).', { code: 'not_signed_in' });
      }
      if (readLocalWorkState(options.dataDir).workspace !== workspace) {
        updateLocalWorkState(options.dataDir, (state) => void (state.workspace = workspace));
        await runtime.restartBackend();
      }
      return runtime.session();
    },
  };
}
