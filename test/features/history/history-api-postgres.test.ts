import { describe } from 'vitest';
import { createMigratedTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runHistoryApiContract } from './history-api.case.js';

if (await requirePostgres()) {
  runHistoryApiContract('PostgreSQL', async () => {
    const test = await createMigratedTestDatabase();
    return { args: [`--ConnectionStrings:postgres=${test.url}`], dispose: () => test.drop() };
  });
} else {
  describe.skip('PostgreSQL (history API): no server on 127.0.0.1:5432', () => undefined);
}
