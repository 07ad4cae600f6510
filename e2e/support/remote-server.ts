import type { Page } from '@playwright/test';
// A real `solardesk server` with the demo data, as the remote a synced SolarDesk
// talks to, behind the sync suite's fault proxy so a test can cut the network.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startFaultProxy, type FaultProxy } from '../../main/sync/testing/fault-proxy.ts';
import { STOP_WITH_PARENT, stopChild, waitForOutput } from '../../main/testing/child-process.ts';
import { multipartBody, postMultipart } from '../../main/engine/testing/multipart-upload.ts';
import { apiPaths } from '../../shared/api-paths.ts';
import { makeTempDir, repoRoot } from './solardesk.ts';

export interface RemoteServer {
  /** Where SolarDesk should sign in: the proxy in front of the server. */
  url: string;
  /** The server's own host:port, which its file links name (the proxy is another port: a download host to the app). */
  serverHost: string;
  proxy: FaultProxy;
  /** A call straight to the server (not through the proxy) as the demo admin. */
  api<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A file attached to a project on the server, as another computer would (multipart, straight to the server); answers its id. */
  attachFile(projectId: number, fileName: string, contents: Buffer): Promise<number>;
  stop(): Promise<void>;
}

export async function startRemoteServer(): Promise<RemoteServer> {
  const dataDir = makeTempDir('solardesk-e2e-remote-');
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'main/solardesk.js'), 'server', '--port', '0', '--data', dataDir, '--seed', 'demo', '--log-level', 'silent', STOP_WITH_PARENT],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const serverUrl = await waitForOutput(child, /listening on (\S+)/);
  const signIn = await fetch(`${serverUrl}/api-token-auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin@sunrise.example', password: 'solardesk-demo' }),
  });
  const { token } = (await signIn.json()) as { token: string };
  const proxy = await startFaultProxy(serverUrl);
  return {
    url: proxy.url,
    serverHost: new URL(serverUrl).host,
    proxy,
    async api<T>(method: string, apiPath: string, body?: unknown) {
      const response = await fetch(`${serverUrl}${apiPath}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as T };
    },
    async attachFile(projectId, fileName, contents) {
      const answer = await postMultipart(`${serverUrl}${apiPaths.privateFiles(1)}`, token, multipartBody({ title: fileName, project: String(projectId) }, { fileName, contents }));
      if (answer.status !== 201) throw new Error(`the server did not take ${fileName}: ${answer.status} ${JSON.stringify(answer.json)}`);
      return answer.json.id as number;
    },
    async stop() {
      await proxy.close();
      await stopChild(child);
    },
  };
}

/** Fills the Sync screen's sign-in card with the demo admin of `remote` and presses Sign in (the Sync screen must be open). */
export async function submitSignIn(page: Page, remote: RemoteServer): Promise<void> {
  await page.getByLabel('Remote URL').fill(remote.url);
  await page.getByLabel('Username').fill('admin@sunrise.example');
  await page.getByLabel('Password').fill('solardesk-demo');
  await page.getByRole('button', { name: 'Sign in' }).click();
}
