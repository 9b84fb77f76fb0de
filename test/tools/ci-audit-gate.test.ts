import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const gate = (stdin: string) =>
  spawnSync(process.execPath, [join(ROOT, '.ci/audit-gate.mjs')], { input: stdin, encoding: 'utf8' });
const report = (counts: Record<string, number>, vulnerabilities: Record<string, unknown> = {}) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts } },
  });

/** Issue 12 item 9: CI audits the production dependencies and fails on a critical advisory. */
describe('CI: npm audit --omit=dev --audit-level=critical', () => {
  it('runs in .ci/run after npm ci, through the gate, and its failure fails the run', () => {
    const script = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const ci = script.indexOf('npm ci --no-audit');
    const audit = script.indexOf(
      'npm audit --omit=dev --audit-level=critical --json 2>/dev/null | node .ci/audit-gate.mjs',
    );
    expect(ci).toBeGreaterThan(-1);
    expect(audit).toBeGreaterThan(ci);
    expect(script).toMatch(/\[ "\$audit_status" -eq 0 \] \|\| \{[^}]*status=1; \}/);
  });

  it('the gate passes a report without critical advisories and fails one with a critical advisory, naming it', () => {
    expect(gate(report({ high: 2, low: 1 })).status).toBe(0);
    const failed = gate(
      report({ critical: 1 }, { 'evil-pkg': { name: 'evil-pkg', severity: 'critical', range: '<1.2.3' } }),
    );
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('critical: evil-pkg <1.2.3');
  });

  it('says so when the advisory service gave no report (exit 2: a warning unless AUDIT_REQUIRED=true)', () => {
    const unavailable = gate(
      JSON.stringify({ message: '405 Method Not Allowed - POST …/advisories/bulk', statusCode: 405 }),
    );
    expect(unavailable.status).toBe(2);
    expect(unavailable.stdout).toContain('the advisory service gave no report (405 Method Not Allowed');
    expect(gate('').status).toBe(2);
  });
});
