/**
 * Resolves when `signal` aborts, or at once when it already has: an abort listener added after the
 * abort is never called, so a stop that lands while a service is busy elsewhere would otherwise be
 * missed until the shutdown deadline.
 */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
