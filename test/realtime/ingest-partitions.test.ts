import { describe, expect, it } from 'vitest';
import { partitionOfFence, partitionOfTopic } from '../../src/realtime/ingest-partitions.js';
import { telemetryTopic } from '../../src/wire/telemetry-topic.js';

describe('ingest partitions', () => {
  it('put a device in the same partition in every process: a fixed hash of its topic (FNV-1a)', () => {
    // Fixed values: a change of the hash would move devices between partitions during a rolling upgrade.
    expect(partitionOfTopic(telemetryTopic('acme', 'dev-1'), 3)).toBe(
      partitionOfTopic('tenants/acme/devices/dev-1/telemetry', 3),
    );
    expect([0, 1, 2, 3, 4, 5].map((i) => partitionOfTopic(telemetryTopic('acme', `dev-${i}`), 4))).toEqual([
      ...[0, 1, 2, 3, 4, 5].map((i) => fnv1a(`tenants/acme/devices/dev-${i}/telemetry`) % 4),
    ]);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(partitionOfTopic('anything', 1)).toBe(0);
  });

  it('spread devices evenly', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[partitionOfTopic(telemetryTopic(`t${i % 7}`, `device-${i}`), 3)]!++;
    for (const count of counts) expect(Math.abs(count - 1000)).toBeLessThan(150);
  });

  it("name a fencing token's partition: tokens of partition p are ≡ p (mod count)", () => {
    // A token in the range the lease hands out (Redis's clock in ms × the count, plus the partition).
    expect(partitionOfFence(3 * 1_790_000_000_000 + 2, 3)).toBe(2);
    expect(partitionOfFence(3 * 1_790_000_000_123, 3)).toBe(0);
    expect(partitionOfFence(64 * 1_790_000_000_000 + 63, 64)).toBe(63);
    expect(partitionOfFence(12345, 1)).toBe(0);
  });
});

/** The reference FNV-1a (32 bits) over UTF-16 code units, written out apart from the code under test. */
function fnv1a(text: string): number {
  let hash = 2166136261;
  for (const unit of text.split('').map((c) => c.charCodeAt(0))) {
    hash = (hash ^ unit) >>> 0;
    hash = Number((BigInt(hash) * 16777619n) % 4294967296n);
  }
  return hash;
}
