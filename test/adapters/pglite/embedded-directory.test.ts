/** The embedded database's directory belongs to one process at a time. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryLockedError, lockDirectory } from '../../../src/adapters/pglite/directory-lock.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../../host/support/child-host.js';
import { freshDataDirectory } from '../../support/embedded-database.js';

const scratch = mkdtempSync(join(tmpdir(), 'hub-lock-'));
afterAll(async () => {
  await killChildren();
  rmSync(scratch, { recursive: true, force: true });
});

describe('embedded database directory', () => {
  it('a second opener is refused with a message naming Database:DataDirectory; after release it may open', () => {
    const dir = join(scratch, 'a');
    const release = lockDirectory(dir);
    expect(readFileSync(join(dir, 'hub.lock'), 'utf8')).toBe(String(process.pid));
    expect(() => lockDirectory(dir)).toThrow(DirectoryLockedError);
    expect(() => lockDirectory(dir)).toThrow(/Database:DataDirectory/);
    release();
    lockDirectory(dir)();
  });

  it('a lock left by a process that is gone is taken over', () => {
    const dir = join(scratch, 'b');
    lockDirectory(dir)();
    // PIDs this high are not handed out (pid_max is at most 2^22).
    writeFileSync(join(dir, 'hub.lock'), '99999999');
    const release = lockDirectory(dir);
    expect(readFileSync(join(dir, 'hub.lock'), 'utf8')).toBe(String(process.pid));
    release();
  });

  it('a hub started on a directory another hub uses stops with that message and leaves the first one working', async () => {
    const data = freshDataDirectory();
    try {
      const env = { Database__DataDirectory: data.path };
      const first = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'], env);
      const url = await first.listeningUrl();
      const second = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'], env);
      expect((await second.exited).code).toBe(1);
      expect(second.output).toMatch(new RegExp(`in use by process ${first.process.pid}.*Database:DataDirectory`));
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
      first.process.kill('SIGTERM');
      expect((await first.exited).code).toBe(0);
    } finally {
      data.remove();
    }
  }, 60_000);

  it('in Development a hub on a new directory creates and migrates it itself (what `npm start` does on a fresh clone)', async () => {
    const dir = join(scratch, 'fresh');
    const env = { Database__DataDirectory: dir };
    const first = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'], env);
    // A new directory is seconds of initdb before the hub can listen.
    await first.waitFor(/database migrated[\s\S]*0001/, 60_000);
    const url = await first.listeningUrl();
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    first.signal('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const again = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0'], env);
    await again.listeningUrl();
    expect(again.output).not.toMatch(/database migrated/);
    again.signal('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 90_000);

  it('keeps what was committed across a close and reopen', async () => {
    const data = freshDataDirectory();
    try {
      let connector = await PgliteConnector.open(data.path);
      await new TenantDatabase(connector).withTenant('acme', (sql) =>
        sql.query(
          `insert into devices (tenant_id, device_id, first_seen, last_seen, last_seq) values ('acme', 'kept', now(), now(), 7)`,
        ),
      );
      await connector.close();
      connector = await PgliteConnector.open(data.path);
      const rows = await new TenantDatabase(connector).withTenant(
        'acme',
        async (sql) => (await sql.query('select device_id, last_seq from devices')).rows,
      );
      await connector.close();
      expect(rows).toEqual([{ device_id: 'kept', last_seq: 7 }]);
    } finally {
      data.remove();
    }
  }, 30_000);
});
