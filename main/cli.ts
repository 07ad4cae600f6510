// `solardesk <command>`: dispatches to the command modules in main/cli/. Each is
// imported only when run, so a command loads only what it uses (and `web` can
// listen before the engine has loaded: main/main-bundle.js).
import { CliError } from './cli/cli-args.ts';
import { STOP_WITH_PARENT_OPTION, stopWhenParentEnds, takeStopWithParent } from './cli/stop-with-parent.ts';
import { DataFolderInUseError, StoreOpenError } from './engine/store/store-errors.ts';

type Run = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Run> }> = {
  start: {
    summary: 'Run SolarDesk on this machine (the embedded store with demo data when no remote is set up)',
    load: async () => (await import('./cli/start-command.ts')).runStartCommand,
  },
  web: { summary: 'Run SolarDesk in your browser (the desktop app’s core, served on 127.0.0.1)', load: async () => (await import('./cli/web-command.ts')).runWebCommand },
  server: { summary: 'Serve the API engine over HTTP', load: async () => (await import('./cli/server-command.ts')).runServerCommand },
  admin: { summary: 'Set up orgs, users, roles, plans and tokens in a server’s data folder', load: async () => (await import('./cli/admin-command.ts')).runAdminCommand },
  agent: {
    summary: 'Keep a local replica of a remote org, serve it on 127.0.0.1, and sync both ways',
    load: async () => (await import('./cli/agent-command.ts')).runAgentCommand,
  },
  'migrate-store': {
    summary: 'Copy a SQLite server’s store and file contents into an empty PostgreSQL store',
    load: async () => (await import('./cli/migrate-store-command.ts')).runMigrateStoreCommand,
  },
};

export const MAIN_HELP = `Usage: solardesk <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(13)} ${command.summary}`)
  .join('\n')}

Every command also takes ${STOP_WITH_PARENT_OPTION}: it stops, as on SIGTERM, when the
process that started it ends (for tests and supervisors).

Run "solardesk <command> --help" for a command's options.`;

export async function main(argv: string[]): Promise<number> {
  const { args, stopWithParent } = takeStopWithParent(argv);
  const [name, ...rest] = args;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(MAIN_HELP);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`solardesk: unknown command "${name}".\n\n${MAIN_HELP}`);
    return 2;
  }
  if (stopWithParent) stopWhenParentEnds();
  try {
    return await (await command.load())(rest);
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`solardesk ${name}: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof StoreOpenError || error instanceof DataFolderInUseError) {
      console.error(`solardesk ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
