import type { IncomingMessage } from 'node:http';

/** What a slot listens on for its end: the handshake's response or socket, then the engine.io session. */
interface Closable {
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/**
 * The pending-handshake slots (Http:MaxPendingUpgrades) of socket.io sessions not yet in the
 * telemetry namespace: a slot is held from the request, through its engine.io session, until the
 * session joins or closes. Once released, nothing of it stays behind: no listener on the TCP socket
 * or the session, and so no reference to the handshake's HTTP request, which an idle session
 * would otherwise keep for its whole life.
 */
export class PendingHandshakes {
  readonly #byRequest = new WeakMap<IncomingMessage, Slot>();
  readonly #bySession = new WeakMap<object, Slot>();

  /** A new session's request: `release` runs once, when the exchange closes first or the session joins. */
  hold(req: IncomingMessage, exchange: Closable, release: () => void): void {
    const slot = new Slot(release, () => this.#byRequest.delete(req));
    this.#byRequest.set(req, slot);
    slot.watch(exchange);
  }

  /** engine.io made a session of the request: the slot now ends with the session instead. */
  started(session: Closable & { request: IncomingMessage }): void {
    const slot = this.#byRequest.get(session.request);
    if (slot === undefined) return;
    this.#byRequest.delete(session.request);
    this.#bySession.set(session, slot);
    slot.watch(session, () => this.#bySession.delete(session));
  }

  /** The session joined the namespace: its slot is free. */
  joined(session: object): void {
    this.#bySession.get(session)?.release();
  }
}

class Slot {
  #release: (() => void) | undefined;
  #forget: () => void;
  #watched: Closable | undefined = undefined;
  readonly #onClose = (): void => this.release();

  constructor(release: () => void, forget: () => void) {
    this.#release = release;
    this.#forget = forget;
  }

  watch(target: Closable, forget?: () => void): void {
    this.#watched?.off('close', this.#onClose);
    this.#watched = target;
    if (forget) this.#forget = forget;
    target.once('close', this.#onClose);
  }

  release(): void {
    const release = this.#release;
    if (release === undefined) return;
    this.#release = undefined;
    this.#watched?.off('close', this.#onClose);
    this.#watched = undefined;
    this.#forget();
    release();
  }
}
