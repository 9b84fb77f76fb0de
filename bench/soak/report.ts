import { renderMarkdown, renderText, type Table } from '../harness/table.js';
import type { DoneFault } from './faults.js';
import type { Check } from './verdict.js';

/** Readiness must be back this soon after every fault. */
export const RECOVERY_LIMIT_SECONDS = 15;

export interface FaultRow {
  fault: DoneFault;
  /** Per instance: seconds until /health/ready was 200 for good, undefined = never within the window. */
  recovery: (number | undefined)[];
  inFlight: number;
}

export function faultTable(rows: readonly FaultRow[], soakStart: number, hubs: number): Table {
  const s = (v: number | undefined) => (v === undefined ? 'NOT READY' : v === 0 ? '0' : v.toFixed(1));
  return {
    title: 'Faults',
    columns: [
      '#',
      'at s',
      'fault',
      'target',
      ...Array.from({ length: hubs }, (_, i) => `h${i} ready s`),
      'in flight',
      'note',
    ],
    rows: rows.map((r, i) => [
      String(i + 1),
      ((r.fault.startedAt - soakStart) / 1000).toFixed(0),
      r.fault.planned.kind,
      r.fault.target,
      ...r.recovery.map(s),
      String(r.inFlight),
      r.fault.note,
    ]),
    notes: [
      `ready s: seconds from the fault's end (the kill; the continue; the restarted service listening; the cut's end) until the instance's /health/ready answered 200 for good; 0 = it never failed a poll (every 0.5 s). Limit ${RECOVERY_LIMIT_SECONDS} s.`,
      'in flight: readings sent before the fault that some follower received only after it.',
    ],
  };
}

/** The readiness invariant, from the table's rows. */
export function readinessCheck(rows: readonly FaultRow[]): Check {
  const late: string[] = [];
  rows.forEach((r, i) =>
    r.recovery.forEach((v, slot) => {
      if (v === undefined || v > RECOVERY_LIMIT_SECONDS)
        late.push(
          `fault ${i + 1} (${r.fault.planned.kind}): h${slot} ${v === undefined ? 'not ready again' : `${v.toFixed(1)} s`}`,
        );
    }),
  );
  const worst = Math.max(0, ...rows.flatMap((r) => r.recovery.map((v) => v ?? Infinity)));
  return {
    name: `every instance /health/ready 200 again within ${RECOVERY_LIMIT_SECONDS} s of each fault`,
    ok: late.length === 0,
    detail: `${rows.length} faults; slowest recovery ${Number.isFinite(worst) ? `${worst.toFixed(1)} s` : 'never'}`,
    examples: late,
  };
}

export function printReport(table: Table, checks: readonly Check[], notes: readonly string[]): boolean {
  console.log(`\n${renderText(table)}\n`);
  console.log('== Verdict');
  const status = (c: Check) => `${c.ok ? 'PASS' : 'FAIL'}${c.judged === false ? ' (not judged)' : ''}`;
  for (const c of checks) {
    console.log(`${status(c)}  ${c.name}: ${c.detail}`);
    for (const e of c.examples) console.log(`        ${e}`);
  }
  for (const n of notes) console.log(`      ${n}`);
  const ok = checks.every((c) => c.ok || c.judged === false);
  console.log(`\nverdict: ${ok ? 'PASS' : 'FAIL'}`);
  console.log(`\n---- Markdown for bench/soak/README.md ----\n\n${renderMarkdown(table)}\n`);
  for (const c of checks) console.log(`- ${status(c)} ${c.name}: ${c.detail}`);
  return ok;
}
