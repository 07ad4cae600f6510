import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLocalNetworkEndpoint } from './local-webhooks.ts';

test('endpoints on this computer or the local network are told apart from public ones, by name or address', () => {
  for (const local of [
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://api.localhost/',
    'http://nas.local/',
    'http://printer/',
    'http://10.1.2.3/',
    'http://172.20.0.5/',
    'http://192.168.1.10/',
    'http://169.254.1.1/',
    'http://100.64.0.1/',
    'http://[::1]:9000/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://[::ffff:127.0.0.1]/',
  ]) {
    assert.equal(isLocalNetworkEndpoint(local), true, local);
  }
  for (const remote of ['https://hooks.example.com/x', 'http://8.8.8.8/', 'http://172.32.0.1/', 'http://192.169.0.1/', 'http://[2001:db8::1]/', 'not a url', '']) {
    assert.equal(isLocalNetworkEndpoint(remote), false, remote);
  }
});
