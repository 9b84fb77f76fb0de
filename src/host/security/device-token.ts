import { SignJWT, jwtVerify } from 'jose';
import { hs256Key } from './hs256-key.js';
import { isValidId } from '../ids.js';
import { systemClock } from '../clock.js';

/** The `aud` of every device token (contract "Embedded broker security"). */
export const DEVICE_TOKEN_AUDIENCE = 'mqtt';
const MIN_KEY_BYTES = 32;
/** Real device tokens are a few hundred bytes; bigger input is refused before any crypto work. */
const MAX_TOKEN_LENGTH = 4096;

/** Who a verified device token speaks for. */
export interface DeviceIdentity {
  tenantId: string;
  deviceId: string;
  /** Epoch ms; undefined when the token does not expire. */
  expiresAt: number | undefined;
}

export interface SignDeviceTokenOptions {
  tenantId: string;
  deviceId: string;
  /** `Ingestion:Mqtt:DeviceKey` (at least 32 bytes). */
  key: string;
  /** Lifetime; undefined → the token does not expire (revoke by changing the key). */
  expiresInSeconds?: number;
  /** Issue time, epoch ms. Default the system clock. */
  now?: number;
}

/** Signs an HS256 device token: `sub` = device id, `tenant_id`, `aud` = `mqtt`, `iat`, optional `exp`. */
export async function signDeviceToken(options: SignDeviceTokenOptions): Promise<string> {
  const { tenantId, deviceId, expiresInSeconds } = options;
  if (!isValidId(tenantId)) throw new TypeError('cannot sign device token: bad tenant id');
  if (!isValidId(deviceId)) throw new TypeError('cannot sign device token: bad device id');
  if (expiresInSeconds !== undefined && (!Number.isInteger(expiresInSeconds) || expiresInSeconds <= 0)) {
    throw new RangeError('expiresInSeconds must be a positive integer');
  }
  const iat = Math.floor((options.now ?? systemClock.now()) / 1000);
  const jwt = new SignJWT({ tenant_id: tenantId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(deviceId)
    .setAudience(DEVICE_TOKEN_AUDIENCE)
    .setIssuedAt(iat);
  if (expiresInSeconds !== undefined) jwt.setExpirationTime(iat + expiresInSeconds);
  return jwt.sign(await hs256Key(deviceKey(options.key)));
}

/** Verifies device tokens with one key. Never throws: a refused token is null. */
export function createDeviceTokenVerifier(
  key: string,
  now: () => number = systemClock.now,
): (token: string) => Promise<DeviceIdentity | null> {
  const signingKey = hs256Key(deviceKey(key));
  return async (token) => {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    try {
      const { payload } = await jwtVerify(token, await signingKey, {
        algorithms: ['HS256'],
        audience: DEVICE_TOKEN_AUDIENCE,
        currentDate: new Date(now()),
      });
      const tenantId = payload['tenant_id'];
      const deviceId = payload.sub;
      if (!isValidId(tenantId) || !isValidId(deviceId)) return null;
      return { tenantId, deviceId, expiresAt: payload.exp === undefined ? undefined : payload.exp * 1000 };
    } catch {
      return null;
    }
  };
}

/** The key, once it is long enough to sign with. */
function deviceKey(key: string): string {
  if (new TextEncoder().encode(key).length < MIN_KEY_BYTES)
    throw new RangeError(`Ingestion:Mqtt:DeviceKey must be at least ${MIN_KEY_BYTES} bytes`);
  return key;
}
