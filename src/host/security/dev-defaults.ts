/**
 * Development-only user-token settings (contract "Configuration": `Auth:Jwt:*` has dev values in
 * Development and is required otherwise). Public by design: never accept them outside Development.
 */
export const DEV_JWT_SECRET = 'telemetry-hub-development-secret-change-me-0123456789';
export const DEV_JWT_ISSUER = 'telemetry-hub-dev';
export const DEV_JWT_AUDIENCE = 'telemetry-hub';

/**
 * Development-only key for device tokens on the embedded broker, fixed so `npm run token -- --device`
 * mints tokens `npm start` accepts. Public by design: refused outside Development, and on a
 * non-loopback `Ingestion:Mqtt:EmbeddedHost`.
 */
export const DEV_DEVICE_KEY = 'telemetry-hub-development-device-key-change-me-0123456789';
