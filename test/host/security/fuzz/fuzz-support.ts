import fc from 'fast-check';
import { Errors, HubError } from '../../../../src/host/errors.js';

/** Every code in the error catalogue: what a remote party may be answered with. */
export const CATALOGUED_CODES: ReadonlySet<string> = new Set(Object.values(Errors).map((d) => d.code));

/** Runs per property: enough to find the classic slips, small enough for a 2-core CI machine. */
export const RUNS = 300;

/** ms of CPU one parser call may take on an input of a few KB: far above a normal call (well under 5 ms), far below a pathological one (backtracking, quadratic loops take seconds). */
export const BUDGET_MS = 250;

/**
 * Calls `fn` and fails unless it took at most `budgetMs` of this process's CPU time (not wall time:
 * on a machine shared with other jobs, waiting for a core says nothing about the input). A call over
 * budget is measured once more before failing, so a garbage collection that happened to land in it
 * is not blamed on the input; a genuinely slow input (backtracking, quadratic loops) is slow twice.
 */
export function withinBudget<T>(fn: () => T, budgetMs = BUDGET_MS): T {
  let start = process.cpuUsage();
  let result = fn();
  if (cpuMs(start) > budgetMs) {
    start = process.cpuUsage();
    result = fn();
    const spent = cpuMs(start);
    if (spent > budgetMs) throw new Error(`call took ${spent.toFixed(1)} ms of CPU (budget ${budgetMs} ms)`);
  }
  return result;
}

/** The async form of withinBudget. */
export async function withinBudgetAsync<T>(fn: () => Promise<T>, budgetMs = BUDGET_MS): Promise<T> {
  let start = process.cpuUsage();
  let result = await fn();
  if (cpuMs(start) > budgetMs) {
    start = process.cpuUsage();
    result = await fn();
    const spent = cpuMs(start);
    if (spent > budgetMs) throw new Error(`call took ${spent.toFixed(1)} ms of CPU (budget ${budgetMs} ms)`);
  }
  return result;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}

/** A thrown value is acceptable only as a HubError with a catalogued code. */
export function isCataloguedError(err: unknown): boolean {
  return err instanceof HubError && CATALOGUED_CODES.has(err.code);
}

/**
 * Text a remote party might send: arbitrary strings (any code point, lone surrogates too), JSON
 * documents, and adversarial shapes (deep nesting, long runs) up to a few KB.
 */
export function hostileText(maxLength = 4096): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 256 }),
    fc.string({ unit: 'binary', maxLength: 256 }),
    fc.json({ maxDepth: 6 }),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc
      .tuple(
        fc.constantFrom('[', '{"a":', '"', '\\', '%', '%2', '0', '-', 'a', '/', '.', '::', '='),
        fc.integer({ min: 1, max: 2048 }),
      )
      .map(([unit, n]) => unit.repeat(n).slice(0, maxLength)),
  );
}
