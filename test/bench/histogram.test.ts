import { describe, expect, it } from 'vitest';
import { Histogram } from '../../bench/harness/histogram.js';

/** The density scenario's latency comes from several client processes: their histograms merged must be one distribution. */
describe('bench latency histogram', () => {
  it('merged from several processes, summarises exactly as one that saw every sample', () => {
    const one = new Histogram();
    const parts = [new Histogram(), new Histogram(), new Histogram()];
    for (let i = 0; i < 30_000; i++) {
      const ms = ((i * 7919) % 5000) / 100 + (i % 97 === 0 ? 400 : 0);
      one.record(ms);
      parts[i % 3]!.record(ms);
    }
    const merged = new Histogram();
    for (const p of parts) merged.merge(JSON.parse(JSON.stringify(p.sparse())));
    expect(merged.summary()).toEqual(one.summary());
    expect(merged.summary().count).toBe(30_000);
    expect(merged.summary().max).toBeGreaterThan(400);
  });

  it('sends only the buckets that hold samples', () => {
    const h = new Histogram();
    h.record(1);
    h.record(1.01);
    h.record(250);
    expect(h.sparse().buckets).toHaveLength(2);
  });
});
