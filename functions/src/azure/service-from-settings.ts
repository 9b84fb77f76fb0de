import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { readWebPubSubSettings } from '../settings/web-pubsub-settings.js';
import { createServiceClient } from '../web-pubsub/service-client.js';

let cached: { key: string; service: WebPubSubServiceClient } | undefined;

/**
 * The management API client for the current app settings, built on first use and kept while they
 * stay the same (as depsFromSettings does). Throws FunctionSettingsError for a missing or bad setting.
 */
export function serviceFromSettings(env: Readonly<Record<string, string | undefined>>): WebPubSubServiceClient {
  const { connectionString, hub } = readWebPubSubSettings(env);
  const key = JSON.stringify([connectionString, hub]);
  if (cached?.key !== key) cached = { key, service: createServiceClient(connectionString, hub) };
  return cached.service;
}
