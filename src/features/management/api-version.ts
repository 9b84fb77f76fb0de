/** The oldest data-plane API version this hub accepts. */
export const MIN_API_VERSION = '2024-01-01';

/**
 * True for `YYYY-MM-DD` (optionally `-preview`) on or after MIN_API_VERSION. The official SDK
 * sends its own version (2024-12-01 for @azure/web-pubsub 1.2); newer ones only add operations.
 */
export function isSupportedApiVersion(value: string | undefined): boolean {
  if (value === undefined) return false;
  const match = /^(\d{4}-\d{2}-\d{2})(-preview)?$/.exec(value);
  return match !== null && match[1]! >= MIN_API_VERSION;
}
