import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER } from '../../src/host/security/dev-defaults.js';

/** Soak-only credentials and names, shared by the hubs, the fleet and the subscribers. */
export const SOAK = {
  hubName: 'telemetry',
  accessKey: 'soak-only-access-key-0123456789abcdef',
  // The hubs run in Production, which refuses the public development secret.
  jwt: { secret: 'soak-only-jwt-secret-0123456789abcdef', issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE },
  /** Two tenants with the same device ids: a reading of the wrong tenant is told by its tenantId alone. */
  tenants: ['soak-a', 'soak-b'] as const,
  /** Devices every subscriber follows. */
  followsPerSubscriber: 2,
  /** Every tenth device publishes at QoS 0: labelled, and left out of the exactness verdict. */
  qos0Every: 10,
  /** How long the ingest lease lasts unrenewed (`Cluster:IngestLeaseSeconds`, its default). */
  leaseSeconds: 5,
} as const;

/** Device i of the fleet: tenant by parity, ids repeated across the two tenants. */
export interface SoakDevice {
  index: number;
  tenantId: string;
  deviceId: string;
  qos: 0 | 1;
}

export function soakDevice(index: number): SoakDevice {
  return {
    index,
    tenantId: SOAK.tenants[index % 2]!,
    deviceId: `dev-${String(Math.floor(index / 2)).padStart(4, '0')}`,
    qos: index % SOAK.qos0Every === SOAK.qos0Every - 1 ? 0 : 1,
  };
}

/** The devices subscriber `s` follows: all of its tenant, spread evenly over the fleet. */
export function followedDevices(s: number, devices: number): number[] {
  const tenant = s % 2;
  const perTenant = Math.ceil(devices / 2);
  const picked: number[] = [];
  for (let k = 0; k < SOAK.followsPerSubscriber; k++) {
    // Stride through the tenant's devices so consecutive subscribers follow different ones.
    const j = (Math.floor(s / 2) + k * Math.max(1, Math.floor(perTenant / SOAK.followsPerSubscriber))) % perTenant;
    const index = j * 2 + tenant;
    if (index < devices && !picked.includes(index)) picked.push(index);
  }
  return picked;
}

/** `msgId` of a device's n-th reading (from 1): its tenant, device and number, so any copy can be traced. */
export function messageId(device: SoakDevice, n: number): string {
  return `${device.tenantId}/${device.deviceId}/${n}`;
}

/** The n of a `msgId` (the part after the last `/`). */
export function messageNumber(msgId: string): number {
  return Number(msgId.slice(msgId.lastIndexOf('/') + 1));
}
