import type { FixedRing } from '../state/fixed-ring';

/** CSS size of every sparkline; must match `.spark` in styles.css. */
export const SPARK_WIDTH = 96;
export const SPARK_HEIGHT = 24;

/**
 * Draws `ring` as a line scaled to its own min/max. The size is a constant rather than read from layout:
 * reading clientWidth right after the row's text changed would force a reflow per row per frame.
 */
export function drawSparkline(canvas: HTMLCanvasElement, ring: FixedRing, color: string): void {
  const dpr = window.devicePixelRatio || 1;
  const w = SPARK_WIDTH;
  const h = SPARK_HEIGHT;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const n = ring.length;
  if (n === 0) return;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = ring.at(i);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const pad = 2;
  const span = max - min || 1;
  const x = (i: number) => pad + ((w - 2 * pad) * i) / Math.max(1, ring.capacity - 1);
  const y = (v: number) => (max === min ? h / 2 : h - pad - ((h - 2 * pad) * (v - min)) / span);
  // Right-aligned: the newest point is always at the right edge, like the charts.
  const offset = ring.capacity - n;
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.lineJoin = 'round';
  ctx.beginPath();
  for (let i = 0; i < n; i++) {
    const px = x(i + offset);
    const py = y(ring.at(i));
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  }
  ctx.stroke();
  ctx.fillStyle = color;
  ctx.beginPath();
  ctx.arc(x(n - 1 + offset), y(ring.at(n - 1)), 2, 0, Math.PI * 2);
  ctx.fill();
}
