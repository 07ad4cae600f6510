// Downloads that carry on (issue 32): a file's contents cut off half way come down
// from the last byte kept (Range, with If-Range), within the same open and after the
// agent restarts, and no byte comes twice. A real agent and server on 127.0.0.1; the
// fault proxy between them is the flaky link. The server's file links name the server
// itself, so the proxy rewrites them to name the proxy: the downloads cross it too.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { startSyncHarness, type SyncHarness } from '../testing/sync-harness.ts';
import { createFile, download } from '../../engine/testing/file-testing.ts';
import { DEMO_USERS } from '../../engine/seed/demo-seed.ts';
import { apiPaths } from '../../../shared/api-paths.ts';
import { downloadPartsDir } from '../download-parts.ts';
import type { DownloadEvent } from '../remote-contents.ts';
import { REMOTE_LIMITS } from '../remote-limits.ts';

const FILE_BYTES = 600_000;

/** The server's file links name the server itself: rewritten to name the proxy, so downloads cross it too. */
function fileLinksNameTheProxy(h: SyncHarness): void {
  h.proxy.addRule({
    method: 'GET',
    path: /^\/api\/.*\/private_files\//,
    action: { kind: 'rewrite', transform: (body) => JSON.parse(JSON.stringify(body).replaceAll(h.server.baseUrl, h.proxy.url)) },
  });
}
const CUT_AT = 250_000;

interface SeenDownload {
  range: string | undefined;
  ifRange: string | undefined;
  /** Bytes the proxy passed on to the agent. */
  sent: number;
}

describe('downloads carry on after a cut', () => {
  let h: SyncHarness;
  let seen: SeenDownload[] = [];

  /**
   * Links in the remote's file answers name the proxy, and every download through it is
   * seen; the first `cuts` are cut after CUT_AT bytes, and later ones pass, or are cut
   * before their first byte when `isDownAfterCuts` (the link stays down).
   */
  function routeDownloadsThroughProxy(cuts: number, { isDownAfterCuts = false } = {}): void {
    h.proxy.clearRules();
    fileLinksNameTheProxy(h);
    let cutsLeft = cuts;
    h.proxy.addRule({
      method: 'GET',
      path: /^\/downloads\//,
      action: {
        kind: 'respond',
        run: async (request: http.IncomingMessage, response: http.ServerResponse, forward) => {
          if (cutsLeft <= 0 && isDownAfterCuts) {
            request.socket.destroy();
            return;
          }
          const answer = await forward();
          const entry: SeenDownload = { range: request.headers.range, ifRange: request.headers['if-range'] as string | undefined, sent: 0 };
          seen.push(entry);
          const { 'transfer-encoding': _encoding, ...headers } = answer.headers;
          response.writeHead(answer.status, headers);
          const isCut = cutsLeft-- > 0 && answer.body.length > CUT_AT;
          const body = isCut ? answer.body.subarray(0, CUT_AT) : answer.body;
          entry.sent = body.length;
          // Written, then the connection is closed before the length the headers promised
          // (a FIN, not a reset, so every byte written reaches the agent and the count is exact).
          response.write(body, () => {
            if (isCut) request.socket.end();
            else response.end();
          });
        },
      },
    });
  }

  /** Where a "bytes=N-" range starts. */
  const keptFrom = (range: string | undefined): number => Number(/^bytes=(\d+)-$/.exec(range ?? '')?.[1] ?? NaN);

  async function remoteFile(name: string): Promise<{ id: number; bytes: Buffer; hash: string }> {
    const bytes = crypto.randomBytes(FILE_BYTES);
    const created = await createFile(h.server, await h.server.tokenFor(DEMO_USERS.sunriseAdmin), bytes, name, { title: name, project: `${h.server.baseUrl}${apiPaths.project(1, 30)}` });
    await h.synced();
    return { id: created.id, bytes, hash: crypto.createHash('sha256').update(bytes).digest('hex') };
  }

  before(async () => {
    h = await startSyncHarness();
  });
  beforeEach(() => {
    seen = [];
  });
  after(() => h.close());

  test('a download cut half way carries on from the last byte kept within the same open, each byte sent once', async () => {
    routeDownloadsThroughProxy(1);
    const file = await remoteFile('cut-once.bin');
    const local = (await h.local('GET', apiPaths.privateFile(1, file.id))).json;
    const fetched = await download(local.file_contents);
    assert.equal(fetched.status, 200, fetched.body.toString().slice(0, 300));
    assert.ok(fetched.body.equals(file.bytes), 'the contents whole');
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.equal(seen[0]!.range, undefined);
    // From the last byte kept. On a loaded machine the stream can end with bytes that
    // reached the socket but not yet the agent's reader (a stream ended with an error
    // drops what it buffered), so the part may hold fewer than the proxy wrote: those,
    // and only those, are asked for again (issue 33: no exact count that load changes).
    const resumedFrom = keptFrom(seen[1]!.range);
    assert.ok(resumedFrom > 0 && resumedFrom <= CUT_AT, `resumed from byte ${resumedFrom}, of ${CUT_AT} sent before the cut`);
    assert.equal(seen[1]!.ifRange, `"${file.hash}"`, 'only if the contents are still those');
    assert.equal(seen[1]!.sent, FILE_BYTES - resumedFrom, 'the rest only');
    assert.deepEqual(fs.readdirSync(downloadPartsDir(h.dataDir)), [], 'the part became the blob');
  });

  test('a download cut and then offline keeps its part; after the agent restarts it carries on from there', async () => {
    // After the cut the link stays down: the open gives up, and says so.
    routeDownloadsThroughProxy(1, { isDownAfterCuts: true });
    const file = await remoteFile('cut-then-restart.bin');
    const local = (await h.local('GET', apiPaths.privateFile(1, file.id))).json;
    const failed = await download(local.file_contents);
    assert.equal(failed.status, 503, failed.body.toString());
    assert.match(failed.body.toString(), /what arrived so far is kept/);
    const part = path.join(downloadPartsDir(h.dataDir), `${file.id}-${file.hash}.part`);
    const kept = fs.statSync(part).size;
    assert.ok(kept > 0 && kept <= CUT_AT, `the bytes that arrived are kept (${kept} of the ${CUT_AT} sent)`);

    await h.restartAgent();
    routeDownloadsThroughProxy(0);
    seen = [];
    const again = (await h.local('GET', apiPaths.privateFile(1, file.id))).json;
    const fetched = await download(again.file_contents);
    assert.equal(fetched.status, 200, fetched.body.toString().slice(0, 300));
    assert.ok(fetched.body.equals(file.bytes), 'the contents whole');
    assert.deepEqual(
      seen.map((entry) => entry.range),
      [`bytes=${kept}-`],
      'only the rest was asked for',
    );
    assert.equal(seen[0]!.sent, FILE_BYTES - kept);
    assert.equal(fs.existsSync(part), false);
  });
});

describe('a remote that sends more bytes than the file holds', () => {
  let h: SyncHarness;
  const events: Array<{ fileId: number; event: DownloadEvent }> = [];

  before(async () => {
    h = await startSyncHarness({ agent: { onDownload: (fileId, event) => events.push({ fileId, event }) } });
  });
  after(() => h.close());

  test('is refused as it streams and told as a failed fetch that says why and what to do, not as the remote being offline', async () => {
    fileLinksNameTheProxy(h);
    // The file grew on the remote after its record was pulled: its bytes run past the record's size and the margin.
    h.proxy.addRule({
      method: 'GET',
      path: /^\/downloads\//,
      action: {
        kind: 'respond',
        run: async (_request: http.IncomingMessage, response: http.ServerResponse) => {
          response.writeHead(200, { 'content-type': 'application/octet-stream' });
          response.end(Buffer.alloc(FILE_BYTES + REMOTE_LIMITS.downloadMarginBytes + 256 * 1024, 'b'));
        },
      },
    });
    const created = await createFile(h.server, await h.server.tokenFor(DEMO_USERS.sunriseAdmin), crypto.randomBytes(FILE_BYTES), 'grew.bin', { title: 'grew.bin', project: `${h.server.baseUrl}${apiPaths.project(1, 30)}` });
    await h.synced();
    const local = (await h.local('GET', apiPaths.privateFile(1, created.id))).json;
    const answer = await download(local.file_contents);
    assert.equal(answer.status, 503, 'asking again later is what helps');
    const detail = (JSON.parse(answer.body.toString()) as { detail: string }).detail;
    assert.match(detail, /the remote sent more than the 600000 bytes the file holds here, so the file has most likely changed on the remote\. Try again after the next sync/);
    assert.doesNotMatch(detail, /what arrived so far is kept/, 'nothing of it is kept');
    const ends = events.filter((entry) => entry.fileId === created.id && entry.event.state !== 'running').map((entry) => entry.event);
    assert.deepEqual(ends.map((event) => event.state), ['failed']);
  });
});
