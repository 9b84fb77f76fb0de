// Reads `npm audit --json` on stdin and decides: exit 0 when there is no critical advisory,
// 1 when there is one (CI fails), 2 when the advisory service gave no report (the registry
// refused or did not answer), which CI reports and fails on only when AUDIT_REQUIRED=true.
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', () => {
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    report = undefined;
  }
  const counts = report?.metadata?.vulnerabilities;
  if (!counts || typeof counts !== 'object') {
    const why = report?.message ?? report?.error?.summary ?? (text.trim().slice(0, 200) || 'no output');
    console.log(`npm audit: the advisory service gave no report (${why})`);
    process.exit(2);
  }
  const levels = ['critical', 'high', 'moderate', 'low', 'info'].map((level) => `${counts[level] ?? 0} ${level}`).join(', ');
  console.log(`npm audit (production dependencies): ${levels}`);
  if ((counts.critical ?? 0) > 0) {
    for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
      if (v?.severity === 'critical') console.log(`  critical: ${name} ${v.range ?? ''}`);
    }
    process.exit(1);
  }
  process.exit(0);
});
