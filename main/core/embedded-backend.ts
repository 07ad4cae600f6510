// The embedded backend: the engine on this machine's own store, with no remote.
// It is the authority for its orgs, so it records activity and delivers webhooks
// itself. The session signs in as a local admin, without a password: whoever can
// read the data folder already holds everything in it.
import { createEngine } from '../engine/engine.ts';
import { seedDemo, DEMO_USERS } from '../engine/seed/demo-seed.ts';
import { issueToken } from '../engine/auth/accounts.ts';
import { planAccess } from '../engine/orgs/org-service.ts';
import { todayIso } from '../engine/clock.ts';
import { DEFAULT_THROTTLE_RATES } from '../../shared/throttle-rates.ts';
import { type EmbeddedStartOptions, type LocalBackend, type LocalIdentity, LOCAL_ONLY_STATE } from './local-backend.ts';

/**
 * The service's quotas protect a shared remote from many clients. The embedded
 * store serves one person through this app (autosave, a 10,000-row list), so its
 * own engine does not ration them; a synced desktop still paces itself against
 * the remote's real quotas (the agent's job).
 */
export const LOCAL_USER_THROTTLE_RATES = Object.fromEntries(
  Object.keys(DEFAULT_THROTTLE_RATES).map((action) => [action, { user: '100000/sec', org: null }]),
);

export class NoLocalOrgError extends Error {}

/** Starts the engine on the data folder, filling an empty store with the demo data. */
export async function startEmbeddedBackend(options: EmbeddedStartOptions): Promise<LocalBackend> {
  const engine = await createEngine({
    dataDir: options.dataDir,
    dataFolder: options.dataFolderLock,
    logLevel: false,
    throttleRates: LOCAL_USER_THROTTLE_RATES,
    webhookDelivery: { allowPrivateEndpoints: options.allowPrivateWebhookEndpoints },
  });
  try {
    await seedDemo(engine.context); // does nothing to a store that holds data
    const baseUrl = await engine.listen(0, '127.0.0.1');
    const identity = await chooseLocalIdentity(engine.context, options.orgId);
    const issue = () => issueToken(engine.context.db, engine.context.clock, identity.user.id);
    let token = await issue();
    return {
      mode: 'embedded',
      db: engine.context.db,
      api: () => ({ baseUrl, token }),
      async renewToken() {
        token = await issue();
      },
      identity: () => identity,
      watchSyncStatus(listener) {
        listener(LOCAL_ONLY_STATE);
        return () => {};
      },
      watchRecordChanges: (listener) => engine.context.changes.subscribe(listener),
      close: () => engine.close(),
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}

type EngineContext = Awaited<ReturnType<typeof createEngine>>['context'];

/** An admin of the wanted org (the demo admin first), among orgs whose API plan is in force. */
async function chooseLocalIdentity(context: EngineContext, wantedOrgId: number | null): Promise<LocalIdentity> {
  const admins = await context.db
    .selectFrom('roles')
    .innerJoin('users', 'users.id', 'roles.user_id')
    .innerJoin('orgs', 'orgs.id', 'roles.org_id')
    .select(['orgs.id as org_id', 'users.id as user_id', 'users.email', 'users.first_name', 'users.family_name'])
    .where('roles.is_admin', '=', 1)
    .orderBy('roles.id')
    .execute();
  const today = todayIso(context.clock);
  const usable: (typeof admins)[number][] = [];
  const orgs: LocalIdentity['orgs'] = [];
  for (const admin of admins) {
    const org = await context.orgs.get(admin.org_id);
    if (!org || !planAccess(org, today).allowed) continue;
    usable.push(admin);
    if (!orgs.some((known) => known.id === org.id)) orgs.push({ id: org.id, name: org.name });
  }
  orgs.sort((a, b) => a.id - b.id);
  const preferred =
    usable.find((admin) => admin.org_id === wantedOrgId) ??
    usable.find((admin) => admin.email === DEMO_USERS.sunriseAdmin) ??
    usable[0];
  if (!preferred) {
    throw new NoLocalOrgError('The local store holds no organisation with an admin and an API plan in force. Sign in to a remote, or start with an empty data folder to get the demo data.');
  }
  const displayName = `${preferred.first_name} ${preferred.family_name}`.trim() || preferred.email;
  return {
    user: { id: preferred.user_id, email: preferred.email, displayName },
    orgId: preferred.org_id,
    orgName: orgs.find((org) => org.id === preferred.org_id)?.name ?? `Org ${preferred.org_id}`,
    isAdmin: true,
    orgs,
  };
}
