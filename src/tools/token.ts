#!/usr/bin/env node
// Entry of `npm run token`: the only place this tool reads the process environment and working directory.
import { runTokenCli } from './token-cli.js';
import { jwtSettingsFromConfig } from './token-config.js';

process.exitCode = await runTokenCli(
  process.argv.slice(2),
  (args) => jwtSettingsFromConfig(args, process.env, process.cwd()),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
);
