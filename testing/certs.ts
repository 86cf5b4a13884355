import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Makes a real self-signed certificate for 127.0.0.1 with openssl (valid one day) in `dir`;
 * returns the PEM file paths and the certificate bytes (to trust it as a CA in a client).
 */
export async function selfSignedCert(dir: string): Promise<{ certfile: string; keyfile: string; cert: Buffer }> {
  const certfile = path.join(dir, 'cert.pem');
  const keyfile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyfile,
      '-out',
      certfile,
    ]),
    { stdio: 'ignore' },
  );
  return { certfile, keyfile, cert: await fs.readFile(certfile) };
}
