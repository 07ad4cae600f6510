// Refuses webhook endpoints on loopback, private, link-local and other
// non-public addresses (server-side request forgery), checked at connect time so
// a DNS answer that changes between check and connect cannot get around it.
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

export class PrivateAddressError extends Error {
  readonly code = 'ESOLARDESK_PRIVATE_ADDRESS';
  constructor(readonly address: string) {
    super(`the endpoint resolves to a non-public address (${address})`);
  }
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPrivateAddress(mapped);
  const family = net.isIP(address);
  if (family === 0) return false;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Throws PrivateAddressError for an endpoint host that is a private IP literal. */
export function assertPublicHost(hostname: string): void {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare) && isPrivateAddress(bare)) throw new PrivateAddressError(bare);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A dns.lookup that fails when any address the name resolves to is private. */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
    if (blocked) return callback(new PrivateAddressError(blocked.address) as unknown as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
