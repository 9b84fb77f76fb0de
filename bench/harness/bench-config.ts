import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER } from '../../src/host/security/dev-defaults.js';

/** Bench-only credentials and names, shared by the hub process and the subscribers. */
export const BENCH = {
  tenant: 'bench',
  hubName: 'telemetry',
  accessKey: 'bench-only-access-key-0123456789abcdef',
  /** Signs the bench devices' tokens for an embedded broker (hub's or anchor's). */
  deviceKey: 'bench-only-device-key-0123456789abcdef',
  /** Every bench device connects from 127.0.0.1 with a connection of its own. */
  maxConnectionsPerIp: 100_000,
  // The hub under test runs in Production, which refuses the public development secret.
  jwt: { secret: 'bench-only-jwt-secret-0123456789abcdef', issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE },
  mosquittoUrl: 'mqtt://127.0.0.1:1883',
  mosquittoPort: 1883,
} as const;

/**
 * How a subscriber talks to the server under test. `wps`: the hub's Web PubSub endpoint
 * (json.webpubsub.azure.v1, groups joined by the token); `hub-sio`: the hub's socket.io endpoint
 * (namespace /telemetry, `subscribe` with ack); `ws`: the raw ws anchor; `sio`: socket.io rooms.
 */
export type SubscriberKind = 'wps' | 'hub-sio' | 'ws' | 'sio';

/** Device ids `dev-0000` …; one device per group in the fan-out benchmark. */
export function deviceId(i: number): string {
  return `dev-${String(i).padStart(4, '0')}`;
}

/**
 * A ~100-byte device reading. `ts` is the publisher's benchClock (fractional epoch ms): the hub
 * passes it through as the Reading's `ts`, the anchors forward the payload as is, and subscribers
 * read it back to compute end-to-end latency.
 */
export function readingPayload(ts: number, i: number): Buffer {
  const t = (20 + (i % 50) / 10).toFixed(2);
  return Buffer.from(
    `{"ts":${ts.toFixed(3)},"temperature":${t},"humidity":41.25,"pressure":1013.2,"battery":87,"status":"ok"}`,
  );
}
