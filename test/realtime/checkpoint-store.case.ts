/**
 * The CheckpointStore contract every implementation runs (hono's `common.case.test.ts` pattern): what the
 * SDK's load balancer relies on — etag-guarded claims, scoped listings, checkpoints that round-trip.
 */
import type { Checkpoint, CheckpointStore, PartitionOwnership } from '../../src/realtime/checkpoint-store.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface StoreUnderTest {
  store: CheckpointStore;
  dispose(): Promise<void>;
}

const NS = 'ns.servicebus.windows.net';
const HUB = 'hub';
const CG = '$default';

function ownership(partitionId: string, ownerId: string, etag?: string): PartitionOwnership {
  return {
    fullyQualifiedNamespace: NS,
    eventHubName: HUB,
    consumerGroup: CG,
    partitionId,
    ownerId,
    ...(etag && { etag }),
  };
}

function checkpoint(partitionId: string, sequenceNumber: number, offset: string): Checkpoint {
  return { fullyQualifiedNamespace: NS, eventHubName: HUB, consumerGroup: CG, partitionId, sequenceNumber, offset };
}

export function runCheckpointStoreContract(name: string, create: () => Promise<StoreUnderTest>): void {
  describe(`${name} (CheckpointStore contract)`, () => {
    let subject: StoreUnderTest;
    let store: CheckpointStore;
    beforeEach(async () => {
      subject = await create();
      store = subject.store;
    });
    afterEach(async () => subject.dispose());

    it('starts empty', async () => {
      expect(await store.listOwnership(NS, HUB, CG)).toEqual([]);
      expect(await store.listCheckpoints(NS, HUB, CG)).toEqual([]);
    });

    it('claims an unowned partition and stamps etag and time', async () => {
      const before = Date.now();
      const [claimed] = await store.claimOwnership([ownership('0', 'a')]);
      expect(claimed).toMatchObject({ partitionId: '0', ownerId: 'a' });
      expect(claimed!.etag).toEqual(expect.any(String));
      expect(claimed!.lastModifiedTimeInMs).toBeGreaterThanOrEqual(before);
      expect(await store.listOwnership(NS, HUB, CG)).toEqual([claimed]);
    });

    it('renews with the current etag and issues a new one', async () => {
      const [first] = await store.claimOwnership([ownership('0', 'a')]);
      const [renewed] = await store.claimOwnership([ownership('0', 'a', first!.etag)]);
      expect(renewed?.etag).toBeDefined();
      expect(renewed!.etag).not.toBe(first!.etag);
    });

    it('refuses a claim with a stale etag, without an etag, or with an etag for nothing stored', async () => {
      const [first] = await store.claimOwnership([ownership('0', 'a')]);
      await store.claimOwnership([ownership('0', 'a', first!.etag)]);
      expect(await store.claimOwnership([ownership('0', 'b', first!.etag)])).toEqual([]);
      expect(await store.claimOwnership([ownership('0', 'b')])).toEqual([]);
      expect(await store.claimOwnership([ownership('1', 'b', 'made-up')])).toEqual([]);
      const owners = (await store.listOwnership(NS, HUB, CG)).map((o) => [o.partitionId, o.ownerId]);
      expect(owners).toEqual([['0', 'a']]);
    });

    it('lets exactly one of two racing claims win', async () => {
      const [first] = await store.claimOwnership([ownership('0', 'a')]);
      const results = await Promise.all(
        ['b', 'c', 'd'].map((owner) => store.claimOwnership([ownership('0', owner, first!.etag)])),
      );
      const winners = results.flat();
      expect(winners).toHaveLength(1);
      expect((await store.listOwnership(NS, HUB, CG))[0]!.ownerId).toBe(winners[0]!.ownerId);
    });

    it('returns only the partitions won in a multi-partition claim', async () => {
      await store.claimOwnership([ownership('1', 'a')]);
      const claimed = await store.claimOwnership([ownership('0', 'b'), ownership('1', 'b'), ownership('2', 'b')]);
      expect(claimed.map((o) => o.partitionId).sort()).toEqual(['0', '2']);
    });

    it('hands an abandoned partition (empty owner) to the next claimer with its etag', async () => {
      const [first] = await store.claimOwnership([ownership('0', 'a')]);
      const [abandoned] = await store.claimOwnership([ownership('0', '', first!.etag)]);
      expect(abandoned?.ownerId).toBe('');
      const [taken] = await store.claimOwnership([ownership('0', 'b', abandoned!.etag)]);
      expect(taken?.ownerId).toBe('b');
    });

    it('keeps hubs and consumer groups apart', async () => {
      await store.claimOwnership([ownership('0', 'a')]);
      await store.updateCheckpoint(checkpoint('0', 5, '500'));
      expect(await store.listOwnership(NS, HUB, 'other')).toEqual([]);
      expect(await store.listOwnership(NS, 'other-hub', CG)).toEqual([]);
      expect(await store.listCheckpoints(NS, HUB, 'other')).toEqual([]);
      const [other] = await store.claimOwnership([{ ...ownership('0', 'b'), consumerGroup: 'other' }]);
      expect(other?.ownerId).toBe('b');
    });

    it('stores the latest checkpoint per partition', async () => {
      await store.updateCheckpoint(checkpoint('0', 1, '100'));
      await store.updateCheckpoint(checkpoint('1', 7, '700'));
      await store.updateCheckpoint(checkpoint('0', 2, '200'));
      const listed = (await store.listCheckpoints(NS, HUB, CG)).sort((a, b) =>
        a.partitionId.localeCompare(b.partitionId),
      );
      expect(listed).toEqual([checkpoint('0', 2, '200'), checkpoint('1', 7, '700')]);
    });

    it('rejects a checkpoint without a position', async () => {
      const bad = { ...checkpoint('0', 1, '100'), offset: undefined } as unknown as Checkpoint;
      await expect(store.updateCheckpoint(bad)).rejects.toThrow(TypeError);
      expect(await store.listCheckpoints(NS, HUB, CG)).toEqual([]);
    });

    it('returns copies, not its own records', async () => {
      await store.claimOwnership([ownership('0', 'a')]);
      const [listed] = await store.listOwnership(NS, HUB, CG);
      listed!.ownerId = 'mutated';
      expect((await store.listOwnership(NS, HUB, CG))[0]!.ownerId).toBe('a');
    });
  });
}
