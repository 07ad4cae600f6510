// `solardesk agent`: the sync agent, headless.
import fs from 'node:fs';
import path from 'node:path';
import { mergeThrottleRates } from '../engine/throttle/throttle.ts';
import type { ThrottleRates } from '../../shared/throttle-rates.ts';
import { readDownloadHostList } from '../../shared/download-hosts.ts';
import { AgentSetupError, startHeadlessAgent } from '../core/app-core.ts';
import { CliError, parseOptions, readByteSize, readContentsPolicy, readPort, readPositiveNumber } from './cli-args.ts';

export const AGENT_HELP = `Usage: solardesk agent --remote URL --username U --password P --data DIR [options]
       solardesk agent --data DIR            (later starts: resume with what was saved)

Keeps a local replica of one organisation of a remote SolarDesk (or compatible)
service, serves its API on 127.0.0.1, and syncs both ways whenever the remote can
be reached. Local reads and writes work the same online and offline.

Options:
  --remote URL              The remote service, e.g. https://solar.example.com
  --username U              Sign-in name on the remote
  --password P              Password (prefer --password-stdin: others can read the command line)
  --password-stdin          Read the password from the first line of standard input
  --data DIR                Folder for the replica, its tokens and settings (created if missing,
                            readable only by you; one agent at a time)
  --org ID                  The org to replicate (default: the account's first org)
  --local-api-port N        Port of the local API (default 0: a free port; the address is printed)
  --poll-interval SECONDS   How often to pull when nothing else wakes sync (default 30); what a poll may
                            send is decided by the budget (--background-share)
  --background-share PERCENT
                            The share of each org-wide daily quota this computer's background sync
                            (polls, sweeps) may use (default 2; 0 to 100; docs/sync.md "Budget")
  --remote-throttle-config FILE
                            The remote's quotas, when they differ from the documented table (a
                            self-hosted server's --throttle-config file); sync paces itself by them
  --folder DIR              Keep one folder per project under DIR: files dropped in are attached to
                            the project, files attached elsewhere are written in (docs/project-folders.md)
  --confirm-deletes         Files deleted in the project folders are deleted everywhere at once, instead
                            of waiting in sync/pending for a confirmation (never when many go at once)
  --stability-window-ms N   A dropped file is attached once its size and time have not changed for N ms
                            (default 2000)
  --chunked-upload-above BYTES
                            Private files larger than this go up in resumable parts (default 16M; K, M, G)
  --upload-part-size BYTES  The size of each part (default 8M)
  --keep-contents WHICH     Files on demand: whose file contents are kept on this computer (and written
                            into the project folders): "relevant" (default: projects where you hold a
                            role, that you pinned, or opened recently) or "all"; the rest are fetched
                            when opened (docs/sync.md "Files on demand")
  --keep-opened-days N      An opened project's files (and a file fetched on demand) are kept N days
                            (default 14; 0: opening keeps nothing)
  --keep-role-projects yes|no
                            Keep the files of projects where you hold a role (default yes)
  --download-hosts HOSTS    Hosts (comma-separated, host or host:port) besides the remote itself that
                            file links may point to, as the remote's documentation names for downloads
                            (default: none; other links fail that file, docs/sync.md)
  -h, --help                Show this help

Prints "local api on http://127.0.0.1:N" when ready, writes the local API's token to
DIR/local-api-token (mode 0600), and one line per sync state change. The remote
token is kept in DIR/remote-token (mode 0600) and never printed.`;

export async function runAgentCommand(args: string[]): Promise<number> {
  const { values } = parseOptions(
    args,
    {
      remote: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      data: { type: 'string' },
      org: { type: 'string' },
      'local-api-port': { type: 'string' },
      'poll-interval': { type: 'string' },
      'background-share': { type: 'string' },
      'remote-throttle-config': { type: 'string' },
      folder: { type: 'string' },
      'confirm-deletes': { type: 'boolean' },
      'stability-window-ms': { type: 'string' },
      'chunked-upload-above': { type: 'string' },
      'upload-part-size': { type: 'string' },
      'keep-contents': { type: 'string' },
      'keep-opened-days': { type: 'string' },
      'keep-role-projects': { type: 'string' },
      'download-hosts': { type: 'string' },
    },
    AGENT_HELP,
  );
  if (values.help) {
    console.log(AGENT_HELP);
    return 0;
  }
  if (!values.data) throw new CliError(`--data DIR is required.\n\n${AGENT_HELP}`);
  const pollInterval = values['poll-interval'] === undefined ? 30 : Number(values['poll-interval']);
  if (!Number.isFinite(pollInterval) || pollInterval <= 0) throw new CliError('--poll-interval takes a positive number of seconds.');
  const backgroundSharePercent = values['background-share'] === undefined ? undefined : Number(String(values['background-share']).replace(/%$/, ''));
  if (backgroundSharePercent !== undefined && !(backgroundSharePercent >= 0 && backgroundSharePercent <= 100)) {
    throw new CliError(`--background-share takes a percentage from 0 to 100 (default 2), not "${values['background-share']}".`);
  }
  const orgId = values.org === undefined ? undefined : Number(values.org);
  if (orgId !== undefined && !Number.isSafeInteger(orgId)) throw new CliError(`--org takes an org id, not "${values.org}".`);
  const password = values['password-stdin'] ? await readFirstLine() : values.password;
  if (values.remote && (!values.username || !password)) throw new CliError('--remote needs --username and a password (--password or --password-stdin).');
  if ((values['confirm-deletes'] || values['stability-window-ms'] !== undefined) && !values.folder) {
    throw new CliError('--confirm-deletes and --stability-window-ms go with --folder DIR.');
  }
  const stabilityWindowMs = readPositiveNumber('--stability-window-ms', values['stability-window-ms']);
  const uploadPartBytes = readByteSize('--upload-part-size', values['upload-part-size']);
  if (uploadPartBytes !== undefined && uploadPartBytes < 1024) throw new CliError('--upload-part-size must be at least 1K.');

  const contents = readContentsPolicy(values['keep-contents'], values['keep-opened-days'], values['keep-role-projects']);

  // Listen for the signals before starting, so one that lands during start-up stops the agent gracefully.
  const shutdown = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  let agent;
  try {
    agent = await startHeadlessAgent({
      dataDir: path.resolve(values.data),
      remote: values.remote,
      username: values.username,
      password,
      orgId,
      localApiPort: readPort(values['local-api-port'], 0),
      pollIntervalSeconds: pollInterval,
      backgroundShare: backgroundSharePercent === undefined ? undefined : backgroundSharePercent / 100,
      remoteRates: readRemoteRates(values['remote-throttle-config']),
      projectFolders: values.folder ? { root: values.folder, confirmDeletes: values['confirm-deletes'] ?? false, stabilityWindowMs } : undefined,
      chunkedUploadAboveBytes: readByteSize('--chunked-upload-above', values['chunked-upload-above']),
      uploadPartBytes,
      contents,
      downloadHosts: readDownloadHosts(values['download-hosts']),
      log: (line) => console.log(line),
    });
  } catch (error) {
    if (error instanceof AgentSetupError) throw new CliError(error.message, 1);
    throw error;
  }
  await shutdown;
  // close() aborts whatever the agent waits for; should anything still hang, the agent stops anyway
  // within a few seconds of SIGTERM (what it acknowledged is committed already).
  const closed = await Promise.race([agent.close().then(() => true), new Promise<false>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS, false).unref())]);
  if (!closed) {
    console.log(`the agent did not finish closing within ${CLOSE_GRACE_MS / 1000} s; stopping anyway`);
    process.exit(0); // something still holds the event loop open: returning would not end the process
  }
  return 0;
}

/** How long a SIGTERM waits for the agent to close before it stops anyway. */
const CLOSE_GRACE_MS = 4000;

/** --download-hosts as a list of hosts ("cdn.example.com", "files.example.com:8443"). */
export function readDownloadHosts(value: string | undefined): string[] {
  if (value === undefined) return [];
  const reading = readDownloadHostList(value);
  if (reading.error !== null) throw new CliError(`--download-hosts: ${reading.error}`);
  return reading.hosts;
}

function readRemoteRates(file: string | undefined): ThrottleRates | undefined {
  if (file === undefined) return undefined;
  try {
    return mergeThrottleRates(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (error) {
    throw new CliError(`--remote-throttle-config ${file}: ${(error as Error).message}`);
  }
}

async function readFirstLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}
