import { app } from '@azure/functions';
import { httpFunction } from '../azure/http-function.js';
import { handleNegotiate } from '../../../src/wire/serverless/negotiate.js';

/** `POST /api/negotiate` → 200 `{ url }` for the user of the bearer token. */
export const negotiate = httpFunction(
  (req, deps) => handleNegotiate(req, deps),
  () => process.env,
);

// Anonymous at the Functions level: the caller is a browser holding a user token, not a function key.
app.http('negotiate', { methods: ['POST'], authLevel: 'anonymous', route: 'negotiate', handler: negotiate });
