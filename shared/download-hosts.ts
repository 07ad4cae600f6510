// The hosts besides the remote itself that its file links may point to (docs/sync.md
// "What the agent takes from a remote"). The agent's --download-hosts flag and the
// app's Settings > Download hosts both read a list through here, so one rule says what a
// host is and one sentence says where it was refused.

/** `files.example.com`, `cdn.example.com:8443`, `127.0.0.1:9000` or `[::1]:9000`: a host, optionally with a port; no scheme, path or user. */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** How many hosts a list may name: a remote documents one or two download hosts, not hundreds. */
export const MAX_DOWNLOAD_HOSTS = 20;

export type DownloadHostsReading = { hosts: string[]; error: null } | { hosts: null; error: string };

/** A list typed by a person (commas, spaces or new lines between hosts), as hosts in lower case, each once; or the sentence that says what is wrong. */
export function readDownloadHostList(text: string): DownloadHostsReading {
  const hosts = [...new Set(text.split(/[\s,]+/).filter(Boolean).map((host) => host.toLowerCase()))];
  const bad = hosts.find((host) => !HOST.test(host));
  if (bad !== undefined) {
    const hint = /^[a-z]+:\/\//i.test(bad) ? ' (leave out the https:// and any path)' : '';
    return { hosts: null, error: `"${bad}" is not a host name${hint}. Name each host as files.example.com or files.example.com:8443, separated by commas.` };
  }
  if (hosts.length > MAX_DOWNLOAD_HOSTS) return { hosts: null, error: `Name at most ${MAX_DOWNLOAD_HOSTS} download hosts (${hosts.length} were given).` };
  return { hosts, error: null };
}

/** Whether `url`'s host is one of `hosts` (a host named without a port allows any port of it). */
export function isNamedDownloadHost(url: URL, hosts: readonly string[]): boolean {
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  return hosts.some((named) => named.toLowerCase() === host || named.toLowerCase() === hostname);
}
