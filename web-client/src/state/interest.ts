/** Where subscription changes go: the current LiveConnection. */
export interface SubscriptionSink {
  subscribe(deviceId: string): void;
  unsubscribe(deviceId: string): void;
}

/**
 * Which devices need live readings: the followed ones (charts) and the list rows on screen (values and
 * sparklines). A row that scrolls away stays subscribed for `lingerMs`, so scrolling back and forth does
 * not churn subscriptions; off-screen rows otherwise cost nothing.
 */
export class Interest {
  readonly followed = new Set<string>();
  private readonly inView = new Set<string>();
  private readonly lingering = new Map<string, number>();

  constructor(
    private sink: SubscriptionSink,
    private readonly lingerMs = 15_000,
    private readonly timers: Pick<Window, 'setTimeout' | 'clearTimeout'> = window,
  ) {}

  wants(id: string): boolean {
    return this.followed.has(id) || this.inView.has(id) || this.lingering.has(id);
  }

  /** Every wanted device, e.g. to subscribe them all on a new connection. */
  all(): Set<string> {
    return new Set([...this.followed, ...this.inView, ...this.lingering.keys()]);
  }

  setFollowed(id: string, on: boolean): void {
    this.change(id, () => (on ? this.followed.add(id) : this.followed.delete(id)));
  }

  setInView(id: string, on: boolean): void {
    if (on) {
      this.change(id, () => {
        this.timers.clearTimeout(this.lingering.get(id));
        this.lingering.delete(id);
        this.inView.add(id);
      });
    } else if (this.inView.delete(id)) {
      const t = this.timers.setTimeout(() => this.change(id, () => this.lingering.delete(id)), this.lingerMs);
      this.lingering.set(id, t);
    }
  }

  /** Moves every wanted device to a new connection (mode switch). */
  rebind(sink: SubscriptionSink): void {
    this.sink = sink;
    for (const id of this.all()) sink.subscribe(id);
  }

  private change(id: string, mutate: () => void): void {
    const before = this.wants(id);
    mutate();
    const after = this.wants(id);
    if (!before && after) this.sink.subscribe(id);
    else if (before && !after) this.sink.unsubscribe(id);
  }
}
