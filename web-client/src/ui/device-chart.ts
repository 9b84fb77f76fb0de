import uPlot from 'uplot';
import type { DeviceWindow } from '../state/device-window';
import { assignScales, axisSpan } from './axis-scales';
import { formatValue, SERIES_COLORS } from './format';

const PLOT_HEIGHT = 190;
const AXIS = '#9da7b3';
const GRID = 'rgba(157, 167, 179, 0.12)';

/**
 * A followed device's card: newest value per metric in large type and a uPlot line chart of its window.
 * Redraws only when visible and only from the frame loop; the plot is built lazily on first sight.
 */
export class DeviceChart {
  readonly root: HTMLElement;
  readonly unfollowButton: HTMLButtonElement;
  private readonly latest: HTMLDListElement;
  private readonly plotBox: HTMLDivElement;
  private readonly gapNote: HTMLParagraphElement;
  private readonly waiting: HTMLParagraphElement;
  private readonly valueEls = new Map<string, HTMLElement>();
  private plot: uPlot | null = null;
  private metrics: string[] = [];
  /** Per metric: 'y' (left axis) or 'y2' (right axis, for a very different magnitude). */
  private scales: string[] = [];
  private drawnVersion = -1;
  private drawnMetricsVersion = -1;
  private drawnSecond = 0;
  private xRange: [number, number] = [0, 1];
  private visible = false;
  private readonly io: IntersectionObserver;
  private readonly ro: ResizeObserver;

  constructor(
    readonly id: string,
    private readonly window: DeviceWindow,
  ) {
    const headingId = `chart-h-${cssSafe(id)}`;
    this.root = document.createElement('article');
    this.root.className = 'chart-card';
    this.root.setAttribute('aria-labelledby', headingId);
    this.root.innerHTML = `
      <header class="chart-head">
        <h3 id="${headingId}"></h3>
        <button type="button" class="unfollow"></button>
      </header>
      <dl class="latest"></dl>
      <p class="waiting">Waiting for the first reading…</p>
      <div class="plot" role="img"></div>
      <p class="gap-note" hidden></p>`;
    (this.root.querySelector('h3') as HTMLElement).textContent = id;
    this.unfollowButton = this.root.querySelector('.unfollow') as HTMLButtonElement;
    this.unfollowButton.textContent = 'Unfollow';
    this.unfollowButton.setAttribute('aria-label', `Unfollow ${id}`);
    this.latest = this.root.querySelector('.latest') as HTMLDListElement;
    this.plotBox = this.root.querySelector('.plot') as HTMLDivElement;
    this.gapNote = this.root.querySelector('.gap-note') as HTMLParagraphElement;
    this.waiting = this.root.querySelector('.waiting') as HTMLParagraphElement;

    this.io = new IntersectionObserver(([entry]) => {
      this.visible = entry?.isIntersecting ?? false;
    });
    this.io.observe(this.root);
    this.ro = new ResizeObserver(() => this.plot?.setSize({ width: this.plotWidth(), height: PLOT_HEIGHT }));
    this.ro.observe(this.plotBox);
  }

  /** True when `flush` would draw: visible, and changed or a second has passed. */
  needsDraw(hubNow: number): boolean {
    if (!this.visible || document.hidden) return false;
    // Without new data the chart still slides once a second, so a silent device visibly falls behind.
    return this.window.version !== this.drawnVersion || Math.floor(hubNow / 1000) !== this.drawnSecond;
  }

  /** Frame task. `hubNow` is the hub's clock; the x axis always ends there, so the window slides. */
  flush(hubNow: number): void {
    if (!this.needsDraw(hubNow)) return;
    const w = this.window;
    const second = Math.floor(hubNow / 1000);
    w.evict(hubNow);
    this.drawnVersion = w.version;
    this.drawnSecond = second;
    const end = Math.max(hubNow, w.ring.newestTime);
    const start = end - axisSpan(end - (w.ring.length ? w.ring.timeAt(0) : end), w.windowMs);
    this.xRange = [start / 1000, end / 1000];
    if (w.metricsVersion !== this.drawnMetricsVersion) this.rebuild();
    this.renderLatest();
    if (!this.plot) return;
    // One bucket per CSS pixel of plot width: the drawing is the same, the work is bounded.
    this.plot.setData(w.toAligned(this.metrics, start, end, Math.max(50, this.plot.bbox.width / uPlot.pxRatio)));
    const gaps = w.gaps.length;
    this.gapNote.hidden = gaps === 0;
    this.gapNote.textContent =
      gaps === 1
        ? 'Hatched band: readings missed while disconnected.'
        : `${gaps} hatched bands: readings missed while disconnected.`;
  }

  destroy(): void {
    this.io.disconnect();
    this.ro.disconnect();
    this.plot?.destroy();
    this.root.remove();
  }

  /** New metric set: rebuild series (rare; uPlot series are cheaper to recreate than to patch). */
  private rebuild(): void {
    this.drawnMetricsVersion = this.window.metricsVersion;
    this.metrics = this.window.ring.metrics;
    this.scales = assignScales(this.metrics, this.window.latest);
    this.plot?.destroy();
    this.plot = null;
    this.waiting.hidden = this.metrics.length > 0;
    if (this.metrics.length === 0) return;
    this.plotBox.setAttribute('aria-label', `Live chart of ${this.metrics.join(', ')} for ${this.id}`);
    const empty = [[], ...this.metrics.map(() => [])] as uPlot.AlignedData;
    this.plot = new uPlot(this.options(), empty, this.plotBox);
  }

  private renderLatest(): void {
    for (const name of this.metrics) {
      let dd = this.valueEls.get(name);
      if (!dd) {
        const item = document.createElement('div');
        const dt = document.createElement('dt');
        dd = document.createElement('dd');
        const i = this.metrics.indexOf(name);
        // Which axis to read it on is said in words, not only by colour.
        dt.textContent = this.scales[i] === 'y2' ? `${name} (right axis)` : name;
        const color = SERIES_COLORS[i % SERIES_COLORS.length] as string;
        item.style.setProperty('--series', color);
        item.append(dt, dd);
        this.latest.append(item);
        this.valueEls.set(name, dd);
      }
      const text = formatValue(this.window.latest.get(name));
      if (dd.textContent !== text) dd.textContent = text;
    }
  }

  private plotWidth(): number {
    return Math.max(200, Math.floor(this.plotBox.clientWidth));
  }

  private options(): uPlot.Options {
    return {
      width: this.plotWidth(),
      height: PLOT_HEIGHT,
      legend: { show: false },
      // Room on the right for a time label at the very end of the axis (else it is cut off); a right axis has its own.
      padding: [null, this.scales.includes('y2') ? null : 28, null, null],
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true, range: () => this.xRange } },
      axes: [
        {
          stroke: AXIS,
          grid: { stroke: GRID },
          ticks: { stroke: GRID },
          space: 70,
          incrs: TIME_INCRS,
          size: 36,
          values: timeTicks,
        },
        { stroke: AXIS, grid: { stroke: GRID }, ticks: { stroke: GRID }, size: 56 },
        ...(this.scales.includes('y2')
          ? [{ scale: 'y2', side: 1 as const, stroke: AXIS, grid: { show: false }, size: 56 }]
          : []),
      ],
      series: [
        {},
        ...this.metrics.map((name, i) => ({
          label: name,
          scale: this.scales[i],
          stroke: SERIES_COLORS[i % SERIES_COLORS.length] as string,
          width: 1.5,
          spanGaps: false,
          points: { show: false },
        })),
      ],
      hooks: { drawClear: [(u: uPlot) => drawGaps(u, this.window)] },
    };
  }
}

const HM = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const HMS = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });

/**
 * Tick steps in seconds. uPlot's defaults jump from 1 to 5 minutes, leaving a narrow 5-minute chart one tick;
 * hours and days for the history windows (24 h, 7 d).
 */
const TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

/** Compact 24-hour tick labels: uPlot's default repeats the date and crowds narrow charts. Whole days show the date. */
function timeTicks(_u: uPlot, splits: number[], _axis: number, _space: number, incr: number): string[] {
  const fmt = incr < 60 ? HMS : incr < 86_400 ? HM : DAY;
  return splits.map((s) => fmt.format(s * 1000));
}

/** Hatched bands where readings were missed, under the series; shape and label, not colour alone. */
function drawGaps(u: uPlot, w: DeviceWindow): void {
  if (!w.gaps.length) return;
  const { ctx } = u;
  const { top, height, left, width } = u.bbox;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  const dpr = uPlot.pxRatio;
  for (const g of w.gaps) {
    const x0 = Math.max(left, u.valToPos(g.from / 1000, 'x', true));
    const x1 = Math.min(left + width, u.valToPos(g.to / 1000, 'x', true));
    if (x1 < left || x0 > left + width) continue;
    const bandW = Math.max(x1 - x0, 3 * dpr);
    ctx.fillStyle = 'rgba(227, 179, 65, 0.14)';
    ctx.fillRect(x0, top, bandW, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, top, bandW, height);
    ctx.clip();
    ctx.strokeStyle = 'rgba(227, 179, 65, 0.55)';
    ctx.lineWidth = dpr;
    ctx.beginPath();
    for (let x = x0 - height; x < x0 + bandW; x += 8 * dpr) {
      ctx.moveTo(x, top + height);
      ctx.lineTo(x + height, top);
    }
    ctx.stroke();
    ctx.restore();
    ctx.fillStyle = '#e3b341';
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    // uPlot leaves the alignment of its last axis label on the context (e.g. centred): the label would start left of the band.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText('gap', x0 + 3 * dpr, top + 12 * dpr);
  }
  ctx.restore();
}

function cssSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}
