// The webhook address guard (issue 19, finding 11): every IPv6 spelling that embeds
// an IPv4 address is judged by that IPv4 address, so a private one cannot be
// reached through NAT64, 6to4, Teredo or the IPv4-compatible and -mapped forms.
// No connection is made here: the literal checks are pure, and dns.lookup answers
// an IP literal itself without asking a resolver.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PrivateAddressError, assertPublicHost, isPrivateAddress, publicOnlyLookup } from './address-guard.ts';

/** [address, what it is]: each must be refused. */
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['10.1.2.3', 'IPv4 private'],
  ['169.254.169.254', 'IPv4 link-local (cloud metadata)'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fd00::2', 'IPv6 unique local'],
  ['fe80::1', 'IPv6 link-local'],
  ['fe80::1%eth0', 'IPv6 link-local with a zone'],
  ['ff02::1', 'IPv6 multicast'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 of 127.0.0.1, dotted'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
  ['64:FF9B:0:0:0:0:C0A8:0101', 'NAT64 of 192.168.1.1, upper case, no ::'],
  ['64:ff9b:1::7f00:1', 'local-use NAT64 (the embedding depends on the operator’s prefix length)'],
  ['64:ff9b:1:7f00:0:100::', 'local-use NAT64 /48 embedding of 127.0.0.1'],
  ['::127.0.0.1', 'IPv4-compatible 127.0.0.1'],
  ['::7f00:1', 'IPv4-compatible 127.0.0.1, hex'],
  ['::a00:1', 'IPv4-compatible 10.0.0.1'],
  ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1, hex'],
  ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1, dotted'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped 127.0.0.1, written out'],
  ['0000:0000:0000:0000:0000:FFFF:7F00:0001', 'IPv4-mapped 127.0.0.1, zero-padded upper case'],
  ['::ffff:0:7f00:1', 'IPv4-translated (SIIT) 127.0.0.1'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
  ['2002:c0a8:101:5::1', '6to4 of 192.168.1.1 with a subnet'],
  ['2001:0:a00:1::1', 'Teredo, server 10.0.0.1'],
  ['2001:0:808:808:0:0:80ff:fffe', 'Teredo, client 127.0.0.1 (obfuscated)'],
  ['2001:0:808:808:8000:ffff:f5ff:fffe', 'Teredo, client 10.0.0.1 (obfuscated)'],
];

/** Public addresses, including IPv4-embedding forms whose embedded address is public: each must pass. */
const ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2001:4860:4860::8888', 'public IPv6 starting 2001 (not Teredo)'],
  ['2a00:1450:4001:82f::200e', 'public IPv6'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ['64:ff9b::1.1.1.1', 'NAT64 of 1.1.1.1, dotted'],
  ['::8.8.8.8', 'IPv4-compatible 8.8.8.8'],
  ['::ffff:808:808', 'IPv4-mapped 8.8.8.8'],
  ['::ffff:8.8.8.8', 'IPv4-mapped 8.8.8.8, dotted'],
  ['2002:808:808::1', '6to4 of 8.8.8.8'],
  ['2001:0:808:808:0:0:f7f7:f7f7', 'Teredo, server and client 8.8.8.8'],
];

describe('webhook address guard', () => {
  test('judges each IPv6 form by the IPv4 address it embeds: private ones refused, public ones let through', () => {
    const passed = REFUSED.filter(([address]) => !isPrivateAddress(address));
    assert.deepEqual(passed, [], 'these private addresses reached a connection attempt');
    const refused = ALLOWED.filter(([address]) => isPrivateAddress(address));
    assert.deepEqual(refused, [], 'these public addresses were refused');
  });

  test('an endpoint URL naming a private IPv6 literal is refused, saying which IPv4 address it hides', () => {
    // The URL parser rewrites these (`[::127.0.0.1]` becomes `[::7f00:1]`); the guard sees what the connection would use.
    for (const endpoint of ['http://[64:ff9b::7f00:1]:8080/hook', 'http://[::127.0.0.1]/', 'https://[0:0:0:0:0:ffff:7f00:1]/', 'http://[2002:7f00:1::]/']) {
      assert.throws(() => assertPublicHost(new URL(endpoint).hostname), (error: unknown) => {
        assert.ok(error instanceof PrivateAddressError, endpoint);
        assert.match(error.message, /non-public address \(.+, which embeds 127\.0\.0\.1\)/, endpoint);
        return true;
      });
    }
    assert.doesNotThrow(() => assertPublicHost(new URL('http://[64:ff9b::808:808]/').hostname));
    assert.doesNotThrow(() => assertPublicHost('hooks.example.com'), 'names are checked after DNS, not here');
  });

  test('the lookup used when connecting refuses a private answer in any IPv6 form', async () => {
    const lookup = (hostname: string) =>
      new Promise<{ error: Error | null; address: unknown }>((resolve) =>
        publicOnlyLookup(hostname, {}, (error, address) => resolve({ error, address })),
      );
    for (const [address] of REFUSED.filter(([text]) => text.includes(':') && !text.includes('%'))) {
      const { error } = await lookup(address);
      assert.ok(error instanceof PrivateAddressError, `${address}: ${String(error)}`);
    }
    for (const [address] of ALLOWED) {
      const { error, address: answer } = await lookup(address);
      assert.equal(error, null, address);
      assert.equal(typeof answer, 'string', address);
    }
  });
});
