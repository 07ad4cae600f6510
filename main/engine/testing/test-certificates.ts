// Certificates made with openssl for a test: a private certificate authority and
// a server certificate it issued for a name of the test's choosing, so a TLS
// client that trusts the authority fails on the name alone, not on trust.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  /** The authority's certificate (PEM): what a client is told to trust. */
  authority: string;
  /** Its file, for NODE_EXTRA_CA_CERTS. */
  authorityFile: string;
  /** The server's key and certificate (PEM), issued by the authority for `serverName`. */
  key: string;
  certificate: string;
  /** A self-signed key and certificate for the same name, which nobody trusts. */
  selfSignedKey: string;
  selfSignedCertificate: string;
  remove(): void;
}

export function makeTestCertificates(serverName: string): TestCertificates {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'solardesk-certs-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...key, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=SolarDesk test authority');
  openssl('req', ...key, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${serverName}`);
  fs.writeFileSync(path.join(dir, 'names.ext'), `subjectAltName=DNS:${serverName}\n`);
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'names.ext');
  openssl('req', '-x509', ...key, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', `/CN=${serverName}`, '-addext', `subjectAltName=DNS:${serverName}`);
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  return {
    authority: read('ca.pem'),
    authorityFile: path.join(dir, 'ca.pem'),
    key: read('server.key'),
    certificate: read('server.pem'),
    selfSignedKey: read('self.key'),
    selfSignedCertificate: read('self.pem'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
