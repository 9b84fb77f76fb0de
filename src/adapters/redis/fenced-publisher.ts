import type { RedisClient } from './redis-connection.js';
import type { FenceKeyOf } from './redis-ingest-lease.js';

/**
 * While KEYS[1] holds fencing token ARGV[1], for each message (ARGV[2…] in fours: channel, text,
 * device group, seq): the group's newest published seq recorded in KEYS[2] as `holding:seq` under
 * the group ('' group: not a reading), the previous holding's moved to `group<` when this holding
 * publishes the group first, then PUBLISH (SPUBLISH on a cluster, where the channels share the
 * fence key's slot). -1 (nothing sent, nothing recorded) once the token moved on. So "this
 * holding published the group up to seq" holds exactly when the cluster was sent it, and the
 * successor's first publishes do not hide what its predecessor reached.
 */
const script = (command: 'PUBLISH' | 'SPUBLISH') => `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local prefix = ARGV[1] .. ':'
for i = 2, #ARGV, 4 do
  local group = ARGV[i + 2]
  if group ~= '' then
    local last = redis.call('HGET', KEYS[2], group)
    if last and string.sub(last, 1, #prefix) ~= prefix then redis.call('HSET', KEYS[2], group .. '<', last) end
    redis.call('HSET', KEYS[2], group, prefix .. ARGV[i + 3])
  end
  redis.call('${command}', ARGV[i], ARGV[i + 1])
end
return 0`;

type WithFencedPublish = RedisClient & {
  fencedPublish(fenceKey: string, publishedKey: string, fence: string, ...messages: string[]): Promise<number>;
};

/** What became of one turn's fenced messages: sent, refused (the holding is over), or failed. */
export type FencedOutcome = { fence: number; count: number } & ({ sent: boolean } | { error: Error });

/**
 * The ingest lease holder's publishes: the messages of one holding sent in one run of synchronous
 * code go to Redis in one fenced script call, not one each (at the holder's rate, thousands of
 * calls a second, each a command, a reply and a promise).
 */
export class FencedPublisher {
  readonly #redis: WithFencedPublish;
  readonly #fenceKeyOf: FenceKeyOf;
  readonly #publishedKey: string;
  readonly #outcome: (outcome: FencedOutcome) => void;
  /** This run's messages per holding (one per ingest partition this instance holds), four strings each. */
  #batches = new Map<number, string[]>();

  constructor(
    redis: RedisClient,
    options: { cluster: boolean; fenceKeyOf: FenceKeyOf; publishedKey: string; outcome(outcome: FencedOutcome): void },
  ) {
    redis.defineCommand('fencedPublish', { numberOfKeys: 2, lua: script(options.cluster ? 'SPUBLISH' : 'PUBLISH') });
    this.#redis = redis as WithFencedPublish;
    this.#fenceKeyOf = options.fenceKeyOf;
    this.#publishedKey = options.publishedKey;
    this.#outcome = options.outcome;
  }

  /** `group` and `seq`: the device group and seq of a reading ('' otherwise). */
  publish(fence: number, channel: string, text: string, group: string, seq: string): void {
    // Sent when this run of synchronous code ends, before the acknowledgements it settled go to the
    // broker (promise callbacks queued after this one): a holder stopped in between must not have
    // acknowledged a reading the cluster was never sent. A turn later was too late (CI's soak).
    if (this.#batches.size === 0) queueMicrotask(() => void this.flush());
    let messages = this.#batches.get(fence);
    if (messages === undefined) this.#batches.set(fence, (messages = []));
    messages.push(channel, text, group, seq);
  }

  /** Sends what this turn gathered now; resolves once Redis answered (wait for it before closing). */
  flush(): Promise<void> {
    if (this.#batches.size === 0) return Promise.resolve();
    const batches = this.#batches;
    this.#batches = new Map();
    const sent: Promise<void>[] = [];
    for (const [fence, messages] of batches) {
      const count = messages.length / 4;
      sent.push(
        this.#redis.fencedPublish(this.#fenceKeyOf(fence), this.#publishedKey, String(fence), ...messages).then(
          (n) => this.#outcome({ fence, count, sent: n !== -1 }),
          (error: Error) => this.#outcome({ fence, count, error }),
        ),
      );
    }
    return sent.length === 1 ? sent[0]! : Promise.all(sent).then(() => undefined);
  }
}
