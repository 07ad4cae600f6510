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
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the prefix
  // length its operator chose (RFC 6052, /48 to /96), and it is local by definition.
  ['64:ff9b:1::', 48],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/**
 * An IP address as its 4 (IPv4) or 16 (IPv6) bytes, or null when the text is not
 * one. Every spelling of an IPv6 address (`::ffff:127.0.0.1`, `0:0:0:0:0:ffff:7f00:1`,
 * upper case, a `%zone`) comes out as the same bytes, so the rules below look at
 * bits, never at text.
 */
export function addressBytes(address: string): Uint8Array | null {
  const bare = address.replace(/%.*$/, '');
  if (net.isIPv4(bare)) return Uint8Array.from(bare.split('.').map(Number));
  if (!net.isIPv6(bare)) return null;
  // A dotted tail (`::ffff:1.2.3.4`) is the last two 16-bit groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  const text = dotted
    ? `${bare.slice(0, dotted.index)}${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`
    : bare;
  const [head = '', tail] = text.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const headGroups = groupsOf(head);
  const tailGroups = tail === undefined ? [] : groupsOf(tail);
  const groups = [...headGroups, ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0), ...tailGroups];
  return Uint8Array.from(groups.flatMap((group) => [group >> 8, group & 0xff]));
}

const hasPrefix = (bytes: Uint8Array, prefix: readonly number[]) => prefix.every((value, index) => bytes[index] === value);
const isZero = (bytes: Uint8Array) => bytes.every((value) => value === 0);

/**
 * The IPv4 addresses an IPv6 address carries, in each form that makes a connection
 * to it reach that IPv4 host (through a translator, a tunnel or the local stack).
 */
export function embeddedIpv4Addresses(bytes: Uint8Array): Uint8Array[] {
  if (bytes.length !== 16) return [];
  const last32 = bytes.slice(12, 16);
  const found: Uint8Array[] = [];
  // ::a.b.c.d (IPv4-compatible), ::ffff:a.b.c.d (IPv4-mapped), ::ffff:0:a.b.c.d (IPv4-translated, SIIT).
  if (isZero(bytes.slice(0, 10)) && ((bytes[10] === 0 && bytes[11] === 0) || (bytes[10] === 0xff && bytes[11] === 0xff))) found.push(last32);
  if (isZero(bytes.slice(0, 8)) && hasPrefix(bytes.slice(8), [0xff, 0xff, 0, 0])) found.push(last32);
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052).
  if (hasPrefix(bytes, [0, 0x64, 0xff, 0x9b]) && isZero(bytes.slice(4, 12))) found.push(last32);
  // 6to4 2002::/16: the IPv4 address is bits 16-47.
  if (hasPrefix(bytes, [0x20, 0x02])) found.push(bytes.slice(2, 6));
  // Teredo 2001::/32: the server is bits 32-63, the client the last 32 bits inverted.
  if (hasPrefix(bytes, [0x20, 0x01, 0, 0])) found.push(bytes.slice(4, 8), last32.map((value) => value ^ 0xff));
  return found;
}

const ipv4Text = (bytes: Uint8Array) => bytes.join('.');

/** Why the address is not a public one (a sentence fragment for messages), or null when it is public. */
export function nonPublicReason(address: string): string | null {
  const bytes = addressBytes(address);
  if (!bytes) return null;
  const hidden = embeddedIpv4Addresses(bytes).find((embedded) => BLOCKED.check(ipv4Text(embedded), 'ipv4'));
  if (hidden) return `${address}, which embeds ${ipv4Text(hidden)}`;
  return BLOCKED.check(address.replace(/%.*$/, ''), bytes.length === 4 ? 'ipv4' : 'ipv6') ? address : null;
}

export class PrivateAddressError extends Error {
  readonly code = 'ESOLARDESK_PRIVATE_ADDRESS';
  constructor(
    readonly address: string,
    reason = address,
  ) {
    super(`the endpoint resolves to a non-public address (${reason})`);
  }
}

export function isPrivateAddress(address: string): boolean {
  return nonPublicReason(address) !== null;
}

/** Throws PrivateAddressError for an endpoint host that is a private IP literal (names are checked after DNS). */
export function assertPublicHost(hostname: string): void {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const reason = nonPublicReason(bare);
  if (reason) throw new PrivateAddressError(bare, reason);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A dns.lookup that fails when any address the name resolves to is private. */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const reason = nonPublicReason(address);
      if (reason) return callback(new PrivateAddressError(address, reason) as unknown as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
