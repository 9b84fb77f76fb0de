import { runHistoryApiContract } from './history-api.case.js';

// startApp gives each app its own copy of the migrated embedded database.
runHistoryApiContract('embedded PGlite', async () => ({ args: [], dispose: async () => undefined }));
