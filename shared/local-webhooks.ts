// Webhooks to this computer and the local network (issue 28, item 5): a setting in the
// app, off by default. The engine's address guard (main/engine/webhooks/address-guard.ts)
// is what refuses such endpoints, at connect time and after DNS; what is here only lets
// the app name the setting the same way everywhere and warn in the webhook editor before
// saving an endpoint that would be refused.

/** The Settings switch, as the person reads it wherever it is named. */
export const LOCAL_WEBHOOKS_SETTING = 'Webhooks to this computer and the local network';

/** Why the switch is off unless turned on: shown beside it. */
export const LOCAL_WEBHOOKS_REASON =
  'Off unless you turn it on: a webhook could otherwise be pointed at services on this computer or your office network, and send them your project data.';

/** What a refused test or delivery tells the person to do, in the app, ending the engine's sentence (the server names its flag instead). */
export const LOCAL_WEBHOOKS_ADVICE = `to deliver to it, turn on “${LOCAL_WEBHOOKS_SETTING}” in Settings.`;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether an endpoint's host is visibly this computer or the local network: a name
 * (`localhost`, `*.localhost`, `*.local`, `*.lan`, `*.internal`, or one with no dot) or an
 * IP literal in a loopback, private, shared or link-local range. A name that only resolves
 * to such an address cannot be seen from here; the engine refuses it when it delivers.
 */
export function isLocalNetworkEndpoint(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === '') return false;
  const v4 = IPV4.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  if (host.includes(':')) {
    // IPv6: loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), and IPv4-mapped ones.
    if (host === '::1' || host === '::') return true;
    if (/^f[cd]/.test(host) || /^fe[89ab]/.test(host)) return true;
    // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (!mapped) return false;
    const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return isLocalNetworkEndpoint(`http://${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}/`);
  }
  return !host.includes('.') || /\.(localhost|local|lan|internal|home\.arpa)$/.test(host);
}
