#!/usr/bin/env node
// Entry of `npm run token`: the only place these tools read the process environment.
import { runTokenCli } from './token-cli.js';

process.exitCode = await runTokenCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
