import type { DeviceStore } from '../state/device-store';
import { DeviceChart } from './device-chart';

/** Chart drawing time per frame; the rest of a ~16 ms frame stays free for input and the list. */
const FRAME_BUDGET_MS = 8;

/** The followed devices' charts, in the order they were followed. */
export class ChartPanel {
  readonly root: HTMLElement;
  private readonly grid: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly charts = new Map<string, DeviceChart>();
  /** Where the next frame's round-robin starts. */
  private next = 0;

  constructor(
    private readonly store: DeviceStore,
    private readonly onUnfollow: (id: string) => void,
  ) {
    this.root = document.createElement('section');
    this.root.className = 'pane charts';
    this.root.setAttribute('aria-labelledby', 'charts-h');
    this.root.innerHTML = `
      <div class="pane-head"><h2 id="charts-h">Followed</h2></div>
      <p class="empty">Choose a device in the list to follow it live.</p>
      <div class="chart-grid"></div>`;
    this.grid = this.root.querySelector('.chart-grid') as HTMLElement;
    this.empty = this.root.querySelector('.empty') as HTMLElement;
  }

  add(id: string): void {
    if (this.charts.has(id)) return;
    const chart = new DeviceChart(id, this.store.follow(id));
    chart.unfollowButton.addEventListener('click', () => this.onUnfollow(id));
    this.charts.set(id, chart);
    this.grid.append(chart.root);
    this.empty.hidden = true;
  }

  remove(id: string): void {
    this.charts.get(id)?.destroy();
    this.charts.delete(id);
    this.empty.hidden = this.charts.size > 0;
  }

  /**
   * Frame task: draws the charts that need it (visible and changed), round-robin within a time budget, so
   * many busy charts share frames instead of stretching one frame past the 50 ms an operator notices.
   */
  flush(hubNow: number): void {
    const list = [...this.charts.values()];
    const start = performance.now();
    for (let i = 0; i < list.length; i++) {
      const chart = list[(this.next + i) % list.length] as DeviceChart;
      if (!chart.needsDraw(hubNow)) continue;
      if (performance.now() - start > FRAME_BUDGET_MS) {
        this.next = (this.next + i) % list.length;
        return;
      }
      chart.flush(hubNow);
    }
  }
}
