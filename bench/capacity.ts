import { readFileSync } from 'node:fs';
import { commandLine, ExitCode, usageError } from '../src/host/command-line.js';
import { capacityMarkdown } from './capacity-model.js';
import type { BenchResults } from './results-json.js';

const CAPACITY = {
  name: 'capacity',
  usage: `usage: npm run capacity -- --results=<bench results .json>

Prints the capacity tables of docs/capacity.md, recomputed from a bench results file
(written by npm run bench -- --json=<file>).`,
  options: { results: { type: 'string' } },
} as const;

const { values } = commandLine(CAPACITY);
if (values.results === undefined) usageError(CAPACITY, '--results is required');
try {
  const results = JSON.parse(readFileSync(values.results, 'utf8')) as BenchResults;
  if (results.schema !== 'telemetry-hub-bench/1')
    throw new Error(`${values.results}: not a bench results file (schema ${String(results.schema)})`);
  process.stdout.write(capacityMarkdown(results));
} catch (err) {
  console.error((err as Error).message);
  process.exit(ExitCode.failure);
}
