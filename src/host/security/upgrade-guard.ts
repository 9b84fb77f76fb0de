import type { IncomingMessage } from 'node:http';
import type { ErrorKey } from '../errors.js';
import { keyedBy } from './rate-limit/chain-limiters.js';
import { ConcurrencyLimiter } from './rate-limit/concurrency-limiter.js';
import { retryAfterSeconds, type RateLimiter } from './rate-limit/rate-limiter.js';
import { TokenBucketLimiter } from './rate-limit/token-bucket-limiter.js';

export interface UpgradeGuardOptions {
  /** `Http:WebSocketUpgradesPerIpPerSecond`: handshakes per client address per second. */
  perIpPerSecond: number;
  /** `Http:WebSocketUpgradeBurstPerIp`: handshakes a client address may start at once. */
  burstPerIp: number;
  /** `Http:MaxPendingUpgrades`: handshakes begun and not yet authenticated, over all clients. */
  maxPending: number;
  /**
   * The client's address (the edge identity's: X-Forwarded-For believed only from `Http:TrustedProxies`),
   * so one client behind a proxy cannot spend everyone's handshakes.
   */
  clientAddress: (req: IncomingMessage) => string;
  /** Epoch ms; for tests. */
  clock?: () => number;
}

/** The rate-limit policy name a 429 names (`policy` member), as the pipeline's limiter does. */
export const UPGRADE_POLICY = 'websocket-upgrades';

export type UpgradeAdmission =
  | { ok: true; release: () => void }
  | {
      ok: false;
      key: Extract<ErrorKey, 'RATE_LIMITED' | 'HTTP_SERVER_BUSY'>;
      detail: string;
      retryAfterSeconds: number;
    };

/**
 * The one gate every WebSocket handshake passes (Web PubSub upgrades and new socket.io sessions),
 * before any token is verified: a token bucket per client address, and a cap on handshakes in
 * flight (begun, not yet authenticated), so a flood of half-open handshakes cannot hold the
 * server's memory. Each admission holds a pending slot until `release` (idempotent).
 */
export class UpgradeGuard {
  readonly #perIp: RateLimiter;
  readonly #pending: RateLimiter;
  readonly #clientAddress: (req: IncomingMessage) => string;
  #inFlight = 0;

  constructor(options: UpgradeGuardOptions) {
    this.#perIp = new TokenBucketLimiter({
      tokenLimit: Math.max(options.burstPerIp, options.perIpPerSecond),
      tokensPerPeriod: options.perIpPerSecond,
      replenishmentPeriodMs: 1000,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    this.#clientAddress = options.clientAddress;
    this.#pending = keyedBy(
      new ConcurrencyLimiter({ permitLimit: options.maxPending, maxPartitions: 1 }),
      () => 'pending',
    );
  }

  /** Handshakes admitted and not yet released. */
  get pending(): number {
    return this.#inFlight;
  }

  admit(req: IncomingMessage): UpgradeAdmission {
    const rate = this.#perIp.tryAcquire(`ip:${this.#clientAddress(req)}`);
    if (!rate.ok) {
      return {
        ok: false,
        key: 'RATE_LIMITED',
        detail: 'Too many WebSocket connections from this address; try again later.',
        retryAfterSeconds: retryAfterSeconds(rate.retryAfterMs ?? 1000),
      };
    }
    const slot = this.#pending.tryAcquire('pending');
    if (!slot.ok) {
      // When a slot frees depends on other handshakes finishing; a second is the usual scale.
      return {
        ok: false,
        key: 'HTTP_SERVER_BUSY',
        detail: 'Too many connections are being set up; try again shortly.',
        retryAfterSeconds: 1,
      };
    }
    this.#inFlight++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight--;
        slot.release?.();
      },
    };
  }
}

/** The problem members and headers of a refusal, the same shape the pipeline's rate limiter answers with. */
export function refusalDetails(refusal: Extract<UpgradeAdmission, { ok: false }>): {
  extensions: Record<string, unknown>;
  headers: Record<string, string>;
} {
  const extensions: Record<string, unknown> = { retryAfterSeconds: refusal.retryAfterSeconds };
  if (refusal.key === 'RATE_LIMITED') extensions['policy'] = UPGRADE_POLICY;
  return { extensions, headers: { 'retry-after': String(refusal.retryAfterSeconds) } };
}
