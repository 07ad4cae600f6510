import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DOWNLOAD_HOSTS, isNamedDownloadHost, readDownloadHostList } from './download-hosts.ts';

test('a typed list becomes hosts in lower case, each once, whatever separates them', () => {
  assert.deepEqual(readDownloadHostList(' Files.Example.com, cdn.example.com:8443\n127.0.0.1:9000  [::1]:9000,files.example.com ').hosts, [
    'files.example.com',
    'cdn.example.com:8443',
    '127.0.0.1:9000',
    '[::1]:9000',
  ]);
  assert.deepEqual(readDownloadHostList('').hosts, []);
  assert.deepEqual(readDownloadHostList(' , ').hosts, []);
});

test('a URL, a path, a user or a bad name is refused with a sentence that says what to type', () => {
  const url = readDownloadHostList('https://files.example.com/bucket');
  assert.equal(url.hosts, null);
  assert.match(url.error!, /"https:\/\/files\.example\.com\/bucket" is not a host name \(leave out the https:\/\/ and any path\)/);
  for (const bad of ['files.example.com/bucket', 'me@files.example.com', '-bad.example.com', 'files..example.com', 'files.example.com:port']) {
    const reading = readDownloadHostList(bad);
    assert.equal(reading.hosts, null, bad);
    assert.match(reading.error!, /is not a host name.*files\.example\.com:8443/, bad);
  }
  const many = readDownloadHostList(Array.from({ length: MAX_DOWNLOAD_HOSTS + 1 }, (_, index) => `h${index}.example.com`).join(','));
  assert.match(many.error!, new RegExp(`at most ${MAX_DOWNLOAD_HOSTS} download hosts`));
});

test('a host named with its port allows that port; named without one, any port of it', () => {
  const link = new URL('https://CDN.example.net:8443/file?sig=1');
  assert.equal(isNamedDownloadHost(link, ['cdn.example.net:8443']), true);
  assert.equal(isNamedDownloadHost(link, ['CDN.example.net']), true);
  assert.equal(isNamedDownloadHost(link, ['cdn.example.net:9000']), false);
  assert.equal(isNamedDownloadHost(link, ['example.net']), false, 'a parent domain is not the host');
  assert.equal(isNamedDownloadHost(link, []), false);
});
