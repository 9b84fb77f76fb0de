import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDatabaseContract } from '../../features/storage/database.case.js';
import type { Connector } from '../../../src/features/storage/connector.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { freshDataDirectory } from '../../support/embedded-database.js';

runDatabaseContract('embedded PGlite', async () => {
  const data = freshDataDirectory();
  const connector = await PgliteConnector.open(data.path);
  return {
    connector,
    fresh: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'hub-db-empty-'));
      let single: PgliteConnector | undefined = await PgliteConnector.open(join(dir, 'data'));
      const a: Connector = {
        engine: 'pglite',
        transaction: single.transaction.bind(single),
        close: async () => {
          await single?.close();
          single = undefined;
        },
      };
      return {
        a,
        b: a,
        cliArgs: [`--Database:DataDirectory=${join(dir, 'data')}`],
        dispose: async () => {
          await a.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    dispose: async () => {
      await connector.close();
      data.remove();
    },
  };
});
