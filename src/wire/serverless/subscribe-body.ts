import { ID_PATTERN, isValidId } from '../../host/ids.js';

/** `POST /api/subscribe` body. `tenantId` defaults to the user's own. */
export interface SubscribeBody {
  readonly connectionId: string;
  readonly deviceId: string;
  readonly tenantId: string | undefined;
}

export type SubscribeBodyResult = { ok: true; value: SubscribeBody } | { ok: false; detail: string };

/** Real bodies are under 200 bytes; anything much bigger is not one. */
export const MAX_SUBSCRIBE_BODY_CHARS = 4096;
const MAX_CONNECTION_ID_LENGTH = 256;

/** Parses and checks the body; every failure says which field is wrong (→ 400). */
export function parseSubscribeBody(text: string): SubscribeBodyResult {
  if (text.length > MAX_SUBSCRIBE_BODY_CHARS)
    return invalid(`The body must be at most ${MAX_SUBSCRIBE_BODY_CHARS} characters.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid('The body must be a JSON object { "connectionId", "deviceId" }.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('The body must be a JSON object { "connectionId", "deviceId" }.');
  }
  const { connectionId, deviceId, tenantId } = value as Record<string, unknown>;
  if (!isConnectionId(connectionId)) {
    return invalid(`"connectionId" must be a string of 1–${MAX_CONNECTION_ID_LENGTH} printable characters.`);
  }
  if (!isValidId(deviceId)) return invalid(`"deviceId" must match ${ID_PATTERN.source}.`);
  if (tenantId !== undefined && tenantId !== null && !isValidId(tenantId)) {
    return invalid(`"tenantId", when given, must match ${ID_PATTERN.source}.`);
  }
  return { ok: true, value: { connectionId, deviceId, tenantId: tenantId ?? undefined } };
}

function isConnectionId(value: unknown): value is string {
  // The id goes into a management API path; control characters are never part of a real one.
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_CONNECTION_ID_LENGTH &&
    !/[\u0000-\u001f\u007f]/.test(value)
  );
}

function invalid(detail: string): SubscribeBodyResult {
  return { ok: false, detail };
}
