// Settings > File transfers reach the running agent (issue 32, item 1): the core hands
// the agent its caps as a function of the saved settings, so the metered switch set
// after the agent started holds at once, without a restart. Seen from outside: a file
// arriving for a project folder waits, listed with the metered reason; switched off and
// retried, it arrives. The real core, agent and test server; real folders.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionInfo, Settings } from '../../../shared/bridge.ts';
import type { FolderStatusJson } from '../../../shared/schemas/folder.ts';
import { apiPaths, syncPaths } from '../../../shared/api-paths.ts';
import { NO_TRANSFER_CAPS } from '../../../shared/transfer-caps.ts';
import type { AppCore } from '../app-core.ts';
import type { TestServer } from '../../engine/testing/test-server.ts';
import { DEMO_PASSWORD } from '../../engine/seed/demo-seed.ts';
import { multipartBody, postMultipart } from '../../engine/testing/multipart-upload.ts';
import { ok, until, untilFirstSync, withRemoteAndCore } from '../testing/app-core-testing.ts';

const PROJECT = 11;

describe('transfer caps from Settings to the running agent', () => {
  const started = withRemoteAndCore('solardesk-core-caps-', 1);
  let remote: TestServer;
  let core: AppCore;
  before(() => {
    remote = started.remote();
    core = started.core();
  });

  const downloadsWaiting = async () => {
    const answer = ok<{ status: number; body: FolderStatusJson }>(await core.invoke('api.request', { method: 'GET', path: syncPaths.folder(1) }));
    return answer.body.enabled ? answer.body.files.filter((file) => file.state === 'downloading') : [];
  };

  test('the metered switch set while the agent runs holds background downloads at once; off, and retried, the file arrives', async () => {
    const root = ok<SessionInfo>(await core.invoke('session.get', undefined)).folderRoot;
    fs.mkdirSync(root, { recursive: true });
    ok(await core.invoke('auth.signIn', { remoteUrl: remote.baseUrl, username: 'admin@sunrise.example', password: DEMO_PASSWORD }));
    await untilFirstSync(core);
    const saved = ok<Settings>(await core.invoke('settings.set', { transferCaps: { ...NO_TRANSFER_CAPS, metered: true } }));
    assert.equal(saved.transferCaps.metered, true);

    const bytes = Buffer.from('a wiring diagram, fetched when the connection is not metered');
    const added = await postMultipart(`${remote.baseUrl}${apiPaths.privateFiles(1)}`, await remote.tokenFor('admin@sunrise.example'), multipartBody({ title: 'Wiring', project: String(PROJECT) }, { fileName: 'wiring.txt', contents: bytes }));
    assert.equal(added.status, 201);
    const fileId = added.json.id as number;
    await until(async () => (await downloadsWaiting()).some((file) => file.file_id === fileId && /metered/.test(file.reason)), 'the download held by the metered switch', 60_000);

    ok(await core.invoke('settings.set', { transferCaps: NO_TRANSFER_CAPS }));
    const retried = ok<{ status: number }>(await core.invoke('api.request', { method: 'POST', path: syncPaths.retryFolderDownload(1, fileId) }));
    assert.equal(retried.status, 200);
    const arrived = () =>
      fs
        .readdirSync(root, { recursive: true, encoding: 'utf8' })
        .some((name) => name.includes(` (${PROJECT})${path.sep}`) && fs.statSync(path.join(root, name)).isFile() && fs.readFileSync(path.join(root, name)).equals(bytes));
    await until(arrived, 'the file in its folder', 60_000);
    ok(await core.invoke('auth.signOut', undefined));
  });
});
