import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** One forwarded request: where to, and what the gateway says about the client on the way. */
export interface UpstreamCall {
  /** The instance's base URL. */
  target: string;
  /** Headers set on the upstream request (forwarding, traceparent), replacing the client's. */
  headers: Record<string, string>;
  /** Headers dropped from the client's request (forwarding headers from an untrusted peer). */
  drop: readonly string[];
  traceId: string;
}

/**
 * The gateway's way to a hub instance: requests and their bodies stream through, upgrades are
 * spliced socket to socket, and failures are answered as problems (the adapter: adapters/proxy).
 */
export interface Upstream {
  web(req: IncomingMessage, res: ServerResponse, call: UpstreamCall): void;
  ws(req: IncomingMessage, socket: Duplex, head: Buffer, call: UpstreamCall): void;
  close(): void;
}
