// The bridge channels of local work (docs/sync.md, "Local work and signing in"):
// what was made on this computer before signing in, offered to the signed-in org,
// sent through its sync agent, or kept here.
import type { BridgeHandlers, LocalWorkKind, LocalWorkOffer } from '../../shared/bridge.ts';
import { BridgeError } from '../../shared/bridge.ts';
import { syncPaths } from '../../shared/api-paths.ts';
import { currentIdOf } from '../sync/replica.ts';
import type { CoreRuntime } from './core-runtime.ts';
import { callLocalApi, type RawApiRequest } from './local-api.ts';
import { listLocalWork, readLocalWorkState, sendLocalWork, targetKey, updateLocalWorkState } from './local-work.ts';

type LocalWorkChannels = 'localWork.list' | 'localWork.send' | 'localWork.keep';

export function localWorkHandlers(runtime: CoreRuntime): Pick<BridgeHandlers, LocalWorkChannels> {
  const { options, events } = runtime;

  /** What exists only on this computer and has not gone to the signed-in org. */
  async function localWorkOffer(): Promise<LocalWorkOffer> {
    const signedIn = runtime.signedInTo(options.settings.read());
    const state = readLocalWorkState(options.dataDir);
    if (!signedIn || !state.signedIn || state.signedIn.remoteUrl !== signedIn.remoteUrl) {
      return { isOpen: false, isKept: false, orgName: null, remoteUrl: null, items: [] };
    }
    const target = state.targets[targetKey(state.signedIn.remoteUrl, state.signedIn.orgId)];
    const items = (await runtime.withLocalStore((store) => listLocalWork(store.db, store.identity().orgId))).filter((item) => !target?.sent[item.key]);
    const isKept = target?.kept ?? false;
    return { isOpen: items.length > 0 && !isKept, isKept, orgName: state.signedIn.orgName, remoteUrl: state.signedIn.remoteUrl, items };
  }

  return {
    'localWork.list': () => localWorkOffer(),

    'localWork.send': async ({ keys }) => {
      const active = await runtime.current();
      const state = readLocalWorkState(options.dataDir);
      if (active.mode !== 'synced' || !state.signedIn) {
        throw new BridgeError('Open your office’s workspace first: work goes up through its sync agent (the workspace switcher in the sidebar).', { code: 'not_signed_in' });
      }
      const signedIn = state.signedIn;
      const target = targetKey(signedIn.remoteUrl, signedIn.orgId);
      const agentApi = (request: RawApiRequest) => callLocalApi(async () => active, request);
      // Sync waits while the records are made: a record the agent pushed meanwhile would
      // be re-keyed under a reference made to its provisional id (a file's project).
      const agentOrg = active.identity().orgId;
      const status = await agentApi({ method: 'GET', path: syncPaths.status(agentOrg) });
      const wasPaused = (status.body as { state?: string } | null)?.state === 'paused';
      if (!wasPaused) await agentApi({ method: 'POST', path: syncPaths.pause(agentOrg) });
      const result = await runtime
        .withLocalStore(async (store) => {
          const all = await listLocalWork(store.db, store.identity().orgId);
          const sent = state.targets[target]?.sent ?? {};
          const wanted = all.filter((item) => keys.includes(item.key) && !sent[item.key]);
          // What was sent earlier was recorded by the agent's provisional id; sync has most likely given it the remote's id since.
          const sentIds = new Map<string, number>();
          for (const [key, entry] of Object.entries(sent)) sentIds.set(key, await currentIdOf(active.db, key.split(':')[0] as LocalWorkKind, entry.remoteId));
          return sendLocalWork(
            {
              source: { callApi: (request) => callLocalApi(async () => store, request), orgId: store.identity().orgId },
              target: { callApi: agentApi, orgId: active.identity().orgId, orgName: signedIn.orgName },
            },
            wanted,
            all,
            (key) => sentIds.get(key) ?? null,
            (item, remoteId) =>
              updateLocalWorkState(options.dataDir, (next) => {
                const entry = (next.targets[target] ??= { kept: false, sent: {} });
                entry.sent[item.key] = { remoteId, at: new Date().toISOString() };
              }),
            (progress) => events.emit('localWork.progress', progress),
          );
        })
        .finally(async () => {
          if (!wasPaused) await agentApi({ method: 'POST', path: syncPaths.resume(agentOrg) });
        });
      return { ...result, offer: await localWorkOffer() };
    },

    'localWork.keep': async () => {
      const state = readLocalWorkState(options.dataDir);
      if (!state.signedIn || !runtime.isSignedIn(options.settings.read())) return localWorkOffer();
      const target = targetKey(state.signedIn.remoteUrl, state.signedIn.orgId);
      updateLocalWorkState(options.dataDir, (next) => void ((next.targets[target] ??= { kept: false, sent: {} }).kept = true));
      return localWorkOffer();
    },
  };
}
