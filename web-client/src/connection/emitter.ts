/** The smallest typed event emitter that does the job; listeners' errors never break the emitter. */
export class Emitter<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly listeners = new Map<keyof Events, Set<Events[keyof Events]>>();

  on<E extends keyof Events>(event: E, fn: Events[E]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const fn of set) {
      try {
        (fn as (...a: Parameters<Events[E]>) => void)(...args);
      } catch (err) {
        console.error('listener failed', err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
