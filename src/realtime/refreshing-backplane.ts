import type { Backplane } from './backplane.js';
import type { BackplaneEnvelope } from '../wire/backplane-codec.js';

/**
 * A backplane whose `watch` also brings the group's shared state up to date (the device's last
 * reading), so the first subscriber of a device on this instance gets the cluster's `last`, not
 * what this instance saw before it stopped watching.
 */
export class RefreshingBackplane implements Backplane {
  readonly #inner: Backplane;
  readonly #refresh: (group: string) => Promise<void>;

  constructor(inner: Backplane, refresh: (group: string) => Promise<void>) {
    this.#inner = inner;
    this.#refresh = refresh;
  }

  publish(envelope: BackplaneEnvelope, fence?: number): void {
    this.#inner.publish(envelope, fence);
  }

  onMessage(handler: (envelope: BackplaneEnvelope) => void): void {
    this.#inner.onMessage(handler);
  }

  async watch(group: string): Promise<void> {
    // Subscribed first: a reading published after the refresh read Redis then arrives live.
    await this.#inner.watch(group);
    await this.#refresh(group);
  }

  unwatch(group: string): void {
    this.#inner.unwatch(group);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
