/** A results table: printed aligned on the console, and as Markdown for bench/README.md. */
export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  notes?: string[];
}

export function renderText(table: Table): string {
  const widths = table.columns.map((c, i) => Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [
    `== ${table.title}`,
    line(table.columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...table.rows.map(line),
  ];
  for (const note of table.notes ?? []) out.push(`   ${note}`);
  return out.join('\n');
}

export function renderMarkdown(table: Table): string {
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [
    `### ${table.title}`,
    '',
    row(table.columns),
    row(table.columns.map(() => '---')),
    ...table.rows.map(row),
  ];
  if (table.notes?.length) out.push('', ...table.notes.map((n) => `- ${n}`));
  return out.join('\n');
}

/** Number formatting shared by the scenarios. */
export const fmt = {
  rate: (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? '–' : v >= 1000 ? `${(v / 1000).toFixed(1)}k` : v.toFixed(0),
  ms: (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(0)),
  ratio: (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : `${v.toFixed(2)}×`),
  num: (v: number | undefined, digits = 1) => (v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits)),
};

/** `value / anchor`, undefined when either is missing. */
export function ratio(value: number | undefined, anchor: number | undefined): number | undefined {
  if (value === undefined || anchor === undefined || !Number.isFinite(value) || !(anchor > 0)) return undefined;
  return value / anchor;
}

/** `✓`/`✗` against a goal, or `–` when not measured. */
export function verdict(ok: boolean | undefined): string {
  return ok === undefined ? '–' : ok ? 'met' : 'MISSED';
}
