import { app } from '@azure/functions';
import { httpFunction } from '../azure/http-function.js';
import { handleSubscribe } from '../../../src/wire/serverless/subscribe.js';

/** `POST /api/subscribe` `{ connectionId, deviceId }` → 204: the connection joins the device's group. */
export const subscribe = httpFunction(
  (req, deps, log) => handleSubscribe(req, { users: deps.users, service: deps.service, log }),
  () => process.env,
);

// Anonymous at the Functions level: the caller is a browser holding a user token, not a function key.
app.http('subscribe', { methods: ['POST'], authLevel: 'anonymous', route: 'subscribe', handler: subscribe });
