import { parseConnectionString } from '../../../src/wire/webpubsub/connection-string.js';
import { FunctionSettingsError } from './function-settings.js';

/** The settings a function needs only to send through the management API (no user tokens involved). */
export interface WebPubSubSettings {
  /** `WebPubSubConnectionString` as given (the SDK parses it again). */
  readonly connectionString: string;
  /** `WebPubSubHub`. */
  readonly hub: string;
}

/** The service's hub name rule (as readFunctionSettings checks it). */
const HUB_NAME = /^[A-Za-z][A-Za-z0-9_`,.[\]]{0,127}$/;

/** Reads and checks `WebPubSubConnectionString` and `WebPubSubHub`. Throws FunctionSettingsError. */
export function readWebPubSubSettings(env: Readonly<Record<string, string | undefined>>): WebPubSubSettings {
  const connectionString = required(env, 'WebPubSubConnectionString');
  try {
    parseConnectionString(connectionString);
  } catch (err) {
    throw new FunctionSettingsError(
      'WebPubSubConnectionString',
      (err as Error).message.replace(/^connection string /, ''),
    );
  }
  const hub = required(env, 'WebPubSubHub');
  if (!HUB_NAME.test(hub)) throw new FunctionSettingsError('WebPubSubHub', 'is not a valid hub name');
  return { connectionString, hub };
}

function required(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new FunctionSettingsError(name, 'is not set');
  return value;
}
