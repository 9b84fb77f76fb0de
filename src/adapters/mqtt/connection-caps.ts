/** Why a connection was turned away at accept. */
export type CapRefusal = 'max_connections' | 'max_connections_per_ip';

/**
 * Open connections in total and per remote address. `admit` counts a connection in (or says why
 * not); `release` counts it out, once, when its socket closes.
 */
export class ConnectionCaps {
  readonly #max: number;
  readonly #maxPerIp: number;
  readonly #perIp = new Map<string, number>();
  #open = 0;

  constructor(options: { maxConnections: number; maxConnectionsPerIp: number }) {
    this.#max = options.maxConnections;
    this.#maxPerIp = options.maxConnectionsPerIp;
  }

  get open(): number {
    return this.#open;
  }

  admit(address: string): CapRefusal | undefined {
    if (this.#open >= this.#max) return 'max_connections';
    const fromIp = this.#perIp.get(address) ?? 0;
    if (fromIp >= this.#maxPerIp) return 'max_connections_per_ip';
    this.#perIp.set(address, fromIp + 1);
    this.#open++;
    return undefined;
  }

  release(address: string): void {
    const fromIp = this.#perIp.get(address) ?? 0;
    if (fromIp <= 1) this.#perIp.delete(address);
    else this.#perIp.set(address, fromIp - 1);
    this.#open--;
  }
}
