// `solardesk start` (npm start): SolarDesk on this machine. It opens the desktop
// app in Electron; where Electron cannot run (its binary is not installed and
// cannot be downloaded, there is no display, or better-sqlite3 is built for Node
// rather than Electron) it says why in one line and runs browser mode instead, so
// a newcomer always gets a working app from `npm install && npm start`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DESKTOP_EXIT_CODES } from '../desktop/exit-codes.ts';
import { ensureDesktopBuilt, repoRoot } from '../renderer-files.ts';
import { parseOptions } from './cli-args.ts';
import { runWebCommand } from './web-command.ts';

const START_HELP = `Usage: solardesk start [--data DIR] [--port N] [--browser]

Opens SolarDesk: the desktop app, or SolarDesk in your browser where the desktop
app cannot run here (it says why). With no remote set up it runs on its embedded
store (./data by default), filled with the demo data the first time.

Options:
  --data DIR   Data folder (default ./data)
  --port N     Browser mode's port (default 8787, or any free port if taken)
  --browser    Skip the desktop app and run browser mode
  -h, --help   Show this help`;

const electronPackage = path.join(repoRoot, 'node_modules/electron');

/** The Electron binary the electron package would run, if it is on disk. */
export function findElectronBinary(): string | null {
  const pathFile = path.join(electronPackage, 'path.txt');
  if (!fs.existsSync(pathFile)) return null;
  const binary = path.join(electronPackage, 'dist', fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(binary) ? binary : null;
}

/** Electron 45 downloads its binary on first use; one try, with a time limit, and the reason if it fails. */
function downloadElectronBinary(): { binary: string } | { reason: string } {
  const result = spawnSync(process.execPath, [path.join(electronPackage, 'install.js')], { encoding: 'utf8', timeout: 180_000 });
  const binary = findElectronBinary();
  if (binary) return { binary };
  const output = `${result.stderr ?? ''}${result.stdout ?? ''}`;
  const firstError = /(?:Error|error)[^\n]*/.exec(output)?.[0] ?? (result.error ? result.error.message : `exit code ${result.status}`);
  return { reason: firstError.slice(0, 160) };
}

/** Why the desktop app cannot open here, or null when it can. */
function desktopBlocker(): { reason: string } | { binary: string } {
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { reason: 'there is no display to open a window on' };
  const binary = findElectronBinary();
  if (binary) return { binary };
  const downloaded = downloadElectronBinary();
  return 'binary' in downloaded ? downloaded : { reason: `the Electron binary is not installed and could not be downloaded (${downloaded.reason})` };
}

function runElectron(binary: string, dataDir: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(binary, [repoRoot, '--data', dataDir], { stdio: 'inherit', env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } });
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(DESKTOP_EXIT_CODES.couldNotLaunch));
  });
}

export async function runStartCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { data: { type: 'string' }, port: { type: 'string' }, browser: { type: 'boolean' } }, START_HELP);
  if (values.help) {
    console.log(START_HELP);
    return 0;
  }
  const dataDir = path.resolve(values.data ?? 'data');
  const webArgs = ['--data', dataDir, '--open', ...(values.port ? ['--port', values.port] : [])];
  if (values.browser) return runWebCommand(webArgs);

  const blocker = desktopBlocker();
  if ('reason' in blocker) {
    console.error(`SolarDesk: the desktop app cannot open here: ${blocker.reason}. Running SolarDesk in your browser instead.`);
    return runWebCommand(webArgs);
  }
  await ensureDesktopBuilt();
  const code = await runElectron(blocker.binary, dataDir);
  if (code === DESKTOP_EXIT_CODES.nativeModuleForNode) {
    console.error('SolarDesk: better-sqlite3 is built for Node, not Electron (run `npm run rebuild:electron` for the desktop app). Running SolarDesk in your browser instead.');
    return runWebCommand(webArgs);
  }
  if (code === DESKTOP_EXIT_CODES.couldNotLaunch) {
    console.error('SolarDesk: Electron would not start here. Running SolarDesk in your browser instead.');
    return runWebCommand(webArgs);
  }
  return code;
}
