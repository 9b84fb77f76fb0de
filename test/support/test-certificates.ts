import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A throwaway CA (`ca.pem`) and a server certificate for 127.0.0.1 and localhost signed by it
 * (`server.pem`, `server.key`), made with openssl in `dir`. False when openssl failed.
 */
export function testCertificates(dir: string): boolean {
  const run = (args: string[]) => spawnSync('openssl', args, { cwd: dir, stdio: 'ignore' }).status === 0;
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  return (
    run([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=test-ca',
    ]) &&
    run([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ]) &&
    run([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '1',
      '-extfile',
      'san.ext',
    ])
  );
}
