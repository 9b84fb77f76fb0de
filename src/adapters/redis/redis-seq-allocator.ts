import type { RedisClient } from './redis-connection.js';
import type { SeqAllocator } from '../../realtime/seq-allocator.js';
import { SeqRefused } from '../../wire/seq-refused.js';
import type { FenceKeyOf } from './redis-ingest-lease.js';

/**
 * A device the caller has numbered before (floor > 0) whose counter Redis does not have: Redis
 * lost its data, and how far the device got elsewhere (on an ingester whose readings this caller
 * never saw) is unknown. Its count then starts after the time in ms, which no seq handed out
 * before can have reached (a device would have to take more than 1000 readings a second since its
 * first), so a new counter never repeats or goes back. A device new to the cluster starts at 1.
 */
const LOST_FLOOR = `local floor = tonumber(ARGV[2])
if floor > 0 and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  local now = redis.call('TIME')
  local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  if ms > floor then floor = ms end
end
`;

/**
 * The next seq, never at or below the caller's floor: after Redis lost its data (a restart
 * without persistence) or while it was away (the ingester counted locally), the counter moves up
 * to what was already handed out instead of repeating it.
 */
const NEXT = `${LOST_FLOOR}local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if n <= floor then
  n = floor + 1
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', n))
end
return n`;

/**
 * A block of ARGV[4] seqs for the holder of fencing token ARGV[3] (refused when KEYS[2] moved on):
 * the counter is raised by the whole block at once, so a successor's block starts after anything
 * this holder could hand out. Returns the block's last seq. Same floor rules as NEXT.
 */
const BLOCK = `if redis.call('GET', KEYS[2]) ~= ARGV[3] then return redis.error_reply('FENCED') end
${LOST_FLOOR}local size = tonumber(ARGV[4])
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], size)
if n - size < floor then
  n = floor + size
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', n))
end
return n`;

type WithSeqCommands = RedisClient & {
  nextSeq(key: string, deviceId: string, floor: string): Promise<number>;
  seqBlock(
    key: string,
    fenceKey: string,
    deviceId: string,
    floor: string,
    fence: string,
    size: string,
  ): Promise<number>;
};

/** Seqs reserved for one device under one fencing token: `next` up to `end`. */
interface Block {
  fence: number;
  next: number;
  end: number;
  /** Set while the next block is asked for: later readings of the device wait on it, in order. */
  fetching: Promise<void> | undefined;
  /**
   * The block after this one, asked for once half of this one is handed out, so a busy device
   * rarely waits for a round trip (and readings of other devices rarely queue behind it).
   * `spareEnd` 0: none held; -1: the last ask failed (a stale token, Redis away), so none is asked
   * again until this block is used up.
   */
  spareEnd: number;
  /** Set while the spare is asked for: a reading finding the block used up waits on it. */
  prefetching: Promise<void> | undefined;
}

export interface RedisSeqAllocatorOptions {
  keyPrefix: string;
  /** A fenced reading's ingest lease token key (its partition's `RedisIngestLease` `fenceKey`). */
  fenceKeyOf: FenceKeyOf;
  /** Seqs reserved per round trip for a fenced reading's device (`Cluster:SeqBlockSize`). */
  blockSize: number;
}

/**
 * Each device's `seq` from a counter in Redis, one hash per tenant (bounded as the tenant's
 * devices are: the pipeline asks only for devices the registry has room for). Calls are
 * auto-pipelined on the cluster's connection, whose replies come in the order asked.
 *
 * Readings of the lease holder (fenced) are numbered from blocks: one round trip reserves
 * `blockSize` seqs for the device, handed out here without asking again, so the one ingester
 * pays a round trip per block, not per reading. A block belongs to one fencing token: a new
 * holding, even of this instance, starts with a new block, and Redis refuses a block to a stale
 * token. What a holder leaves of its blocks is skipped (a gap in `seq`, never a repeat).
 * Unfenced readings (a device on this instance's embedded broker) take one seq per round trip.
 */
export class RedisSeqAllocator implements SeqAllocator {
  readonly #redis: WithSeqCommands;
  readonly #prefix: string;
  readonly #fenceKeyOf: FenceKeyOf;
  readonly #blockSize: number;
  /** Per tenant, per device: no key string built per reading. */
  readonly #blocks = new Map<string, Map<string, Block>>();

  constructor(redis: RedisClient, options: RedisSeqAllocatorOptions) {
    if (!('nextSeq' in redis)) redis.defineCommand('nextSeq', { numberOfKeys: 1, lua: NEXT });
    if (!('seqBlock' in redis)) redis.defineCommand('seqBlock', { numberOfKeys: 2, lua: BLOCK });
    this.#redis = redis as WithSeqCommands;
    this.#prefix = options.keyPrefix;
    this.#fenceKeyOf = options.fenceKeyOf;
    this.#blockSize = options.blockSize;
  }

  next(tenantId: string, deviceId: string, floor: number, fence?: number): number | Promise<number> {
    if (fence === undefined) return this.#redis.nextSeq(`${this.#prefix}${tenantId}`, deviceId, String(floor));
    let devices = this.#blocks.get(tenantId);
    if (devices === undefined) this.#blocks.set(tenantId, (devices = new Map()));
    let block = devices.get(deviceId);
    if (block !== undefined && block.fence > fence) throw new SeqRefused(fence);
    if (block === undefined || block.fence !== fence) {
      block = { fence, next: 1, end: 0, fetching: undefined, spareEnd: 0, prefetching: undefined };
      devices.set(deviceId, block);
    }
    return this.#take(tenantId, deviceId, block, floor);
  }

  #take(tenantId: string, deviceId: string, block: Block, floor: number): number | Promise<number> {
    const fetching = block.fetching ?? (block.next > block.end ? block.prefetching : undefined);
    if (fetching !== undefined) return fetching.then(() => this.#take(tenantId, deviceId, block, floor));
    if (block.next > block.end && block.spareEnd - this.#blockSize >= block.end) {
      block.next = block.spareEnd - this.#blockSize + 1;
      block.end = block.spareEnd;
      block.spareEnd = 0;
    }
    // A floor at or past the block: another instance numbered the device meanwhile (a holder
    // before us whose readings we learned); the block is stale.
    if (block.next <= block.end && floor < block.next) {
      if (block.prefetching === undefined && block.spareEnd === 0 && block.end - block.next < this.#blockSize / 2)
        this.#prefetch(tenantId, deviceId, block, floor);
      return block.next++;
    }
    block.spareEnd = 0;
    const asked = this.#ask(tenantId, deviceId, block, floor)
      .then(
        (end) => {
          block.next = end - this.#blockSize + 1;
          block.end = end;
          // A spare a prefetch brought meanwhile lies below this block: of no use.
          if (block.spareEnd - this.#blockSize < end) block.spareEnd = 0;
        },
        (err: Error) => {
          throw err.message.includes('FENCED') ? new SeqRefused(block.fence) : err;
        },
      )
      .finally(() => {
        block.fetching = undefined;
      });
    block.fetching = asked;
    return asked.then(() => this.#take(tenantId, deviceId, block, floor));
  }

  /**
   * Asks for the block after `block` while it still has seqs to hand out. A failed ask (a stale
   * token, Redis away) leaves nothing: the ask made when the block runs out meets the same answer.
   */
  #prefetch(tenantId: string, deviceId: string, block: Block, floor: number): void {
    block.prefetching = this.#ask(tenantId, deviceId, block, floor).then(
      (end) => {
        block.prefetching = undefined;
        block.spareEnd = end;
      },
      () => {
        block.prefetching = undefined;
        block.spareEnd = -1;
      },
    );
  }

  #ask(tenantId: string, deviceId: string, block: Block, floor: number): Promise<number> {
    return this.#redis.seqBlock(
      `${this.#prefix}${tenantId}`,
      this.#fenceKeyOf(block.fence),
      deviceId,
      String(floor),
      String(block.fence),
      String(this.#blockSize),
    );
  }
}
