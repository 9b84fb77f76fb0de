import type { DeviceEntry } from '../state/device-store';
import { isOnline, relativeTime, summarizeData } from './format';
import { drawSparkline } from './sparkline';

const SPARK_COLOR = '#7cc4ff';

/** One list row: a toggle button (Enter/Space/click follow or unfollow) updated in place, never rebuilt. */
export class DeviceRow {
  readonly li: HTMLLIElement;
  readonly button: HTMLButtonElement;
  private readonly presence: HTMLSpanElement;
  private readonly presenceText: HTMLSpanElement;
  private readonly seen: HTMLSpanElement;
  private readonly values: HTMLSpanElement;
  private readonly tag: HTMLSpanElement;
  private readonly canvas: HTMLCanvasElement;
  // Last written strings: the DOM is touched only when the text really changes.
  private shown = { online: '', seen: '', values: '' };

  constructor(
    readonly id: string,
    hintId: string,
  ) {
    this.li = el('li', 'device');
    this.li.dataset.id = id;
    this.button = el('button', 'device-btn');
    this.button.type = 'button';
    this.button.setAttribute('aria-pressed', 'false');
    this.button.setAttribute('aria-describedby', hintId);
    const name = el('span', 'dev-id');
    name.textContent = id;
    this.presence = el('span', 'presence');
    const dot = el('span', 'dot');
    dot.setAttribute('aria-hidden', 'true');
    this.presenceText = el('span', 'presence-text');
    this.presence.append(dot, this.presenceText);
    this.seen = el('span', 'seen');
    this.values = el('span', 'values');
    this.canvas = el('canvas', 'spark');
    this.canvas.setAttribute('aria-hidden', 'true');
    // The pressed state is announced from aria-pressed; the visible tag is for sighted users.
    this.tag = el('span', 'follow-tag');
    this.tag.setAttribute('aria-hidden', 'true');
    this.button.append(name, this.presence, this.seen, this.tag, this.values, this.canvas);
    this.li.append(this.button);
    this.setFollowed(false);
  }

  setFollowed(on: boolean): void {
    this.button.setAttribute('aria-pressed', String(on));
    this.li.classList.toggle('followed', on);
    this.tag.textContent = on ? '★ Following' : '☆ Follow';
  }

  /** Presence and relative time: cheap, run every second for rows on screen. */
  renderTime(e: DeviceEntry, hubNow: number): void {
    const online = isOnline(e.lastSeen, hubNow) ? 'Online' : 'Offline';
    if (online !== this.shown.online) {
      this.shown.online = online;
      this.presenceText.textContent = online;
      this.presence.dataset.online = String(online === 'Online');
    }
    const seen = relativeTime(e.lastSeen, hubNow);
    if (seen !== this.shown.seen) {
      this.shown.seen = seen;
      this.seen.textContent = seen;
    }
  }

  /** Values and sparkline: run when the device got a reading since the last frame. */
  renderData(e: DeviceEntry, hubNow: number): void {
    this.renderTime(e, hubNow);
    const values = summarizeData(e.last?.data);
    if (values !== this.shown.values) {
      this.shown.values = values;
      this.values.textContent = values;
    }
    drawSparkline(this.canvas, e.spark, SPARK_COLOR);
  }
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}
