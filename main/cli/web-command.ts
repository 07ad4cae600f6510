// `solardesk web`: browser mode. Runs the same core the desktop runs and serves
// the renderer plus the bridge over HTTP on 127.0.0.1, behind a per-launch secret.
// The page is served from a thread of its own, which listens and prints the URL while
// the core loads: the browser loads the page meanwhile, and the bridge's first
// requests wait for the core.
import { once } from 'node:events';
import path from 'node:path';
import type { AppCore } from '../core/app-core.ts';
import { defaultSettings } from '../core/host-stores.ts';
import { ensureRendererBuilt, rendererDist } from '../renderer-files.ts';
import { startBridgeThread } from '../web/bridge-thread.ts';
import { openWithSystem } from '../web/open-with-system.ts';
import { CliError, parseOptions, readByteSize, readContentsPolicy, readPort } from './cli-args.ts';

export const WEB_HELP = `Usage: solardesk web [options]

Runs SolarDesk in your browser: the same core as the desktop app, on this
machine's store (the demo data the first time, when no remote is set up), served
on 127.0.0.1 behind a secret that changes at every launch.

Options:
  --port N           Port to listen on (default 8787, or any free port if that is taken; 0 picks one)
  --data DIR         Data folder: the store, the replica of a remote, settings (default ./data)
  --folder-root DIR  Where project folders go, until changed in Settings (default ~/SolarDesk)
  --open             Open the app in the default browser
  --sync-interval SECONDS
                     Once signed in to a remote: how often to sync when nothing
                     else wakes it (default 30)
  --keep-contents relevant|all, --keep-opened-days N, --keep-role-projects yes|no
                     Once signed in: whose file contents are kept on this computer,
                     as for the agent (solardesk agent --help; docs/sync.md "Files on demand")
  --max-upload-size BYTES
                     The largest file the store on this machine accepts: bytes,
                     or with a K, M or G suffix (default 2G)
  --allow-private-webhook-endpoints
                     Start with Settings' "Webhooks to this computer and the local
                     network" turned on, unless it was already chosen there (for tests
                     and self-hosted networks)
  -h, --help         Show this help

Prints "SolarDesk is running at <URL>". The URL carries the secret; open it as
printed. SIGTERM or SIGINT stops SolarDesk.`;

const DEFAULT_PORT = 8787;

/** Resolves with the first SIGINT or SIGTERM. */
export function nextShutdownSignal(): Promise<NodeJS.Signals> {
  const stopListening = new AbortController();
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  return Promise.race(signals.map((signal) => once(process, signal, { signal: stopListening.signal }).then(() => signal))).finally(() =>
    stopListening.abort(),
  );
}

export async function runWebCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(
    args,
    {
      port: { type: 'string' },
      data: { type: 'string' },
      'folder-root': { type: 'string' },
      open: { type: 'boolean' },
      'sync-interval': { type: 'string' },
      'keep-contents': { type: 'string' },
      'keep-opened-days': { type: 'string' },
      'keep-role-projects': { type: 'string' },
      'allow-private-webhook-endpoints': { type: 'boolean' },
      'max-upload-size': { type: 'string' },
    },
    WEB_HELP,
  );
  if (values.help) {
    console.log(WEB_HELP);
    return 0;
  }
  const port = readPort(values.port, DEFAULT_PORT);
  const syncInterval = values['sync-interval'] === undefined ? undefined : Number(values['sync-interval']);
  if (syncInterval !== undefined && !(syncInterval > 0)) throw new CliError(`--sync-interval takes a positive number of seconds, not "${values['sync-interval']}".`);
  const dataDir = path.resolve(values.data ?? 'data');
  const defaults = {
    ...defaultSettings(values['folder-root'] ? path.resolve(values['folder-root']) : undefined),
    // The flag only sets where Settings' "Webhooks to this computer and the local network" starts (tests, automation); a choice made in Settings stands.
    localWebhooks: values['allow-private-webhook-endpoints'] === true,
  };

  const contents = readContentsPolicy(values['keep-contents'], values['keep-opened-days'], values['keep-role-projects']);
  const maxUploadBytes = readByteSize('--max-upload-size', values['max-upload-size']);

  await ensureRendererBuilt();
  // The page is served, and its URL printed, by a thread of its own; the core loads here
  // meanwhile, and the bridge's first requests wait for it (web/bridge-thread.ts).
  const pageServer = startBridgeThread({ distDir: rendererDist, port, anyPortIfTaken: values.port === undefined, open: values.open === true });
  // Listening for signals before the URL is out: whoever reads it may stop us at once.
  const shutdown = nextShutdownSignal();
  const coreStarting = (async (): Promise<AppCore> => {
    const [{ startAppCore }, { fileSettingsStore }, { createSyncAgentHost }] = await Promise.all([
      import('../core/app-core.ts'),
      import('../core/host-stores.ts'),
      import('../core/agent-backend.ts'),
    ]);
    return startAppCore({
      dataDir,
      hostName: 'SolarDesk in the browser (solardesk web)',
      settings: fileSettingsStore(path.join(dataDir, 'desktop-settings.json'), defaults),
      openFolder: openWithSystem,
      syncAgent: createSyncAgentHost({ pollIntervalSeconds: syncInterval, contents }),
      maxUploadBytes,
    });
  })();
  pageServer.serve(coreStarting);
  try {
    await pageServer.listening;
  } catch (error) {
    await pageServer.close();
    await coreStarting.then((core) => core.close()).catch(() => {});
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`port ${port} is in use. Pick another with --port, or --port 0 for any free one.`, 1);
    throw error;
  }
  let core: AppCore;
  try {
    core = await coreStarting;
  } catch (error) {
    // The page was told (503, the same message); the person who started us is told here.
    await pageServer.close();
    const { NoLocalOrgError } = await import('../core/embedded-backend.ts');
    if (error instanceof NoLocalOrgError) throw new CliError(error.message, 1);
    throw error;
  }
  if (!(await pageServer.opened)) console.error('SolarDesk: could not open a browser here; open the URL above yourself.');
  const ended = await Promise.race([shutdown, pageServer.failed]);
  if (ended instanceof Error) {
    console.error(`SolarDesk: the page's server stopped (${ended.message}); start solardesk web again.`);
    await core.close();
    return 1;
  }
  await pageServer.close();
  await core.close();
  return 0;
}
