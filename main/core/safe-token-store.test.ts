// The safeStorage token store. Electron's safeStorage cannot run here (no Electron
// binary), so it is stood in for by a reversible cipher; everything else is real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from '../engine/testing/test-server.ts';
import { SAFE_TOKEN_FILE, safeStorageTokenStore, type SafeStorageLike } from './safe-token-store.ts';
import { REMOTE_TOKEN_FILE } from '../sync/agent.ts';

const fakeSafeStorage = (available: boolean): SafeStorageLike => ({
  isEncryptionAvailable: () => available,
  encryptString: (text) => Buffer.from(Buffer.from(text, 'utf8').map((byte) => byte ^ 0x5a)),
  decryptString: (bytes) => Buffer.from(bytes.map((byte) => byte ^ 0x5a)).toString('utf8'),
});

test('the token is stored encrypted, never in plain text, and replaces a plain copy', () => {
  const dir = makeTempDir('solardesk-safe-');
  try {
    fs.writeFileSync(path.join(dir, REMOTE_TOKEN_FILE), 'old-plain-token');
    const store = safeStorageTokenStore(fakeSafeStorage(true), dir);
    store.write('secret-remote-token');
    const stored = fs.readFileSync(path.join(dir, SAFE_TOKEN_FILE));
    assert.equal(stored.includes('secret-remote-token'), false);
    assert.equal(fs.statSync(path.join(dir, SAFE_TOKEN_FILE)).mode & 0o777, 0o600);
    assert.equal(fs.existsSync(path.join(dir, REMOTE_TOKEN_FILE)), false);
    assert.equal(store.read(), 'secret-remote-token');
    store.clear();
    assert.equal(store.read(), null);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without OS encryption it falls back to a 0600 file and says so', () => {
  const dir = makeTempDir('solardesk-safe-');
  const warnings: string[] = [];
  try {
    const store = safeStorageTokenStore(fakeSafeStorage(false), dir, (message) => warnings.push(message));
    store.write('token-in-file');
    assert.equal(fs.statSync(path.join(dir, REMOTE_TOKEN_FILE)).mode & 0o777, 0o600);
    assert.equal(store.read(), 'token-in-file');
    assert.match(warnings[0]!, /no secret storage/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
