// `solardesk start` (npm start): SolarDesk on this machine. Until the desktop shell
// lands (issue 7) this serves the embedded engine with the demo data, so a newcomer
// has a working API at once.
import path from 'node:path';
import { runServerCommand } from './server-command.ts';
import { parseOptions } from './cli-args.ts';

const START_HELP = `Usage: solardesk start [--data DIR] [--port N]

Runs SolarDesk on its embedded store (./data by default), filled with the demo
data the first time. Sign in as admin@sunrise.example with password solardesk-demo.`;

export async function runStartCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(args, { data: { type: 'string' }, port: { type: 'string' } }, START_HELP);
  if (values.help) {
    console.log(START_HELP);
    return 0;
  }
  const dataDir = path.resolve(values.data ?? 'data');
  console.error(`SolarDesk: embedded store in ${dataDir}, demo data, no remote configured.`);
  return runServerCommand(['--data', dataDir, '--seed', 'demo', '--port', values.port ?? '8787']);
}
