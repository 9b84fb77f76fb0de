import { createHash } from 'node:crypto';

/**
 * Picks a ready instance of a stamp. Without an affinity key: round robin. With one (a socket.io
 * client's address): rendezvous hashing, so every request of that client goes to the same instance
 * while the stamp's ready set stays the same, and only the clients of an instance that leaves move.
 */
export class InstancePicker {
  readonly #next = new Map<string, number>();

  pick(stamp: string, instances: readonly string[], affinityKey?: string): string | undefined {
    if (instances.length === 0) return undefined;
    if (affinityKey !== undefined) {
      let best: string | undefined;
      let bestScore = '';
      for (const instance of instances) {
        const score = createHash('sha1').update(affinityKey).update('\0').update(instance).digest('hex');
        if (score > bestScore) [best, bestScore] = [instance, score];
      }
      return best;
    }
    const i = (this.#next.get(stamp) ?? 0) % instances.length;
    this.#next.set(stamp, i + 1);
    return instances[i];
  }
}
