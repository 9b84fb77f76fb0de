import type { DeviceStore } from '../state/device-store';
import { DeviceRow } from './device-row';

/** Minimum time between re-renders of a row's values and sparkline. */
const ROW_DATA_INTERVAL_MS = 100;

export interface DeviceListOptions {
  store: DeviceStore;
  onToggle: (id: string) => void;
  /** A row scrolled into or out of view (drives live subscriptions for list values). */
  onVisibility: (id: string, visible: boolean) => void;
  isFollowed: (id: string) => boolean;
  /** The hub's clock now (see ClockOffset). */
  hubNow: () => number;
}

/**
 * The tenant's devices, ordered by id, filtered by the search box. Rows are created once and updated in
 * place from the frame loop; only rows on screen are re-rendered.
 */
export class DeviceList {
  readonly root: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly search: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly rows = new Map<string, DeviceRow>();
  private readonly order: string[] = [];
  private readonly visible = new Set<string>();
  private readonly observer: IntersectionObserver;
  private filter = '';
  private filterDirty = false;
  private lastSecond = 0;
  private lastDataFlush = 0;
  private loading = true;

  constructor(private readonly opts: DeviceListOptions) {
    this.root = document.createElement('section');
    this.root.className = 'pane devices';
    this.root.setAttribute('aria-labelledby', 'devices-h');
    this.root.innerHTML = `
      <div class="pane-head">
        <h2 id="devices-h">Devices</h2>
        <span class="count"></span>
      </div>
      <label class="search"><span class="visually-hidden">Filter devices by id</span>
        <input type="search" placeholder="Filter by device id" autocomplete="off" spellcheck="false"></label>
      <p class="progress" role="status"></p>
      <p class="empty" hidden></p>
      <p id="device-hint" class="visually-hidden">Press Enter or Space to follow or unfollow this device's live chart.</p>
      <ul class="device-list"></ul>`;
    this.list = this.root.querySelector('ul') as HTMLUListElement;
    this.search = this.root.querySelector('input') as HTMLInputElement;
    this.count = this.root.querySelector('.count') as HTMLElement;
    this.empty = this.root.querySelector('.empty') as HTMLElement;
    this.progress = this.root.querySelector('.progress') as HTMLElement;

    this.search.addEventListener('input', () => {
      this.filter = this.search.value.trim().toLowerCase();
      this.filterDirty = true;
    });
    this.list.addEventListener('click', (ev) => {
      const li = (ev.target as Element).closest('li.device') as HTMLLIElement | null;
      if (li?.dataset.id) this.opts.onToggle(li.dataset.id);
    });
    // Arrow keys move between rows as a convenience; Tab still visits every row.
    this.list.addEventListener('keydown', (ev) => {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      const buttons = [...this.list.querySelectorAll<HTMLButtonElement>('li:not([hidden]) .device-btn')];
      const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const next = buttons[i + (ev.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        ev.preventDefault();
        next.focus();
      }
    });
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), {
      root: this.list,
      rootMargin: '120px 0px',
    });
    this.opts.store.onAdded = (e) => this.add(e.id);
    for (const id of this.opts.store.ids()) this.add(id);
  }

  setProgress(text: string, loading: boolean): void {
    this.progress.textContent = text;
    this.progress.hidden = text === '';
    this.loading = loading;
    this.filterDirty = true;
  }

  setFollowed(id: string, on: boolean): void {
    this.rows.get(id)?.setFollowed(on);
  }

  focusRow(id: string): void {
    this.rows.get(id)?.button.focus();
  }

  /** Frame task: apply the filter, re-render changed rows on screen, tick relative times once a second. */
  flush(hubNow: number): void {
    if (this.filterDirty) this.applyFilter();
    const store = this.opts.store;
    // Values changing faster than ~10 times a second are unreadable; skipping frames leaves time for charts.
    const dataDue = hubNow - this.lastDataFlush >= ROW_DATA_INTERVAL_MS;
    if (dataDue) this.lastDataFlush = hubNow;
    for (const id of dataDue ? store.takeDirty() : []) {
      const row = this.rows.get(id);
      const e = store.get(id);
      if (!row || !e) continue;
      // Off-screen rows are skipped; they render when they scroll into view.
      if (this.visible.has(id)) row.renderData(e, hubNow);
    }
    const second = Math.floor(hubNow / 1000);
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      for (const id of this.visible) {
        const e = store.get(id);
        if (e) this.rows.get(id)?.renderTime(e, hubNow);
      }
    }
  }

  private add(id: string): void {
    if (this.rows.has(id)) return;
    const row = new DeviceRow(id, 'device-hint');
    row.setFollowed(this.opts.isFollowed(id));
    this.rows.set(id, row);
    // Pages arrive in id order, so the common case is an append; live-only devices are slotted in.
    const at = sortedIndex(this.order, id);
    this.order.splice(at, 0, id);
    const before = this.order[at + 1];
    this.list.insertBefore(row.li, before ? (this.rows.get(before)?.li ?? null) : null);
    row.li.hidden = !this.matches(id);
    this.observer.observe(row.li);
    this.filterDirty = true;
  }

  private matches(id: string): boolean {
    return this.filter === '' || id.toLowerCase().includes(this.filter);
  }

  private applyFilter(): void {
    this.filterDirty = false;
    let shown = 0;
    for (const [id, row] of this.rows) {
      const match = this.matches(id);
      if (row.li.hidden === match) row.li.hidden = !match;
      if (match) shown++;
    }
    const total = this.rows.size;
    this.count.textContent = this.filter ? `${shown} of ${total}` : `${total}`;
    this.empty.hidden = shown > 0 || this.loading;
    this.empty.textContent =
      total === 0 ? 'No devices in this tenant yet.' : `No device id contains “${this.search.value.trim()}”.`;
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    const store = this.opts.store;
    for (const entry of entries) {
      const id = (entry.target as HTMLElement).dataset.id;
      if (!id) continue;
      if (entry.isIntersecting) {
        this.visible.add(id);
        const e = store.get(id);
        if (e) this.rows.get(id)?.renderData(e, this.opts.hubNow());
      } else {
        this.visible.delete(id);
      }
      this.opts.onVisibility(id, entry.isIntersecting);
    }
  }
}

function sortedIndex(arr: readonly string[], id: string): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((arr[mid] as string) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
