import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { packageRoot } from './package-root.js';

/** Exit codes of every command (documented in docs/development.md and docs/operations.md, "Lifecycle"). */
export const ExitCode = {
  ok: 0,
  /** A hosted service failed, or work was abandoned at the shutdown timeout. */
  failure: 1,
  /** A flag the command does not know, or a bad flag value (sysexits EX_USAGE). */
  usage: 64,
  /** Start-up stopped on a missing or bad configuration value (sysexits EX_CONFIG). */
  config: 78,
} as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Strict<O extends Options> = { args: string[]; options: O; strict: true; allowPositionals: false };

/** The parsed flags of a command: `parseArgs`'s values, typed from the options. */
export type CommandValues<O extends Options> = ReturnType<typeof parseArgs<Strict<O>>>['values'];

/** One command-line program: its name in messages, its usage text and its flags. */
export interface Command<O extends Options> {
  /** What messages start with (`token: --sub is required`). */
  name: string;
  /** Printed by `--help` (stdout, exit 0) and after a usage error (stderr, exit 64). */
  usage: string;
  /** The command's own flags; `--help` and `--version` are added. */
  options: O;
  /**
   * Takes the hub's configuration arguments too (`--environment E`, `--Section:Key=value`), handed
   * back apart: their names are the configuration's, not a fixed list.
   */
  configArgs?: boolean;
}

/** What the command line asks for: run with these flags, or exit now with this output. */
export type CommandLine<O extends Options> =
  | { kind: 'run'; values: CommandValues<O>; configArgs: string[] }
  | { kind: 'exit'; code: number; stdout: string; stderr: string };

/** The package's version, from package.json (what `--version` prints). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Reads a command line strictly (`node:util` `parseArgs`, no positionals, unknown flags refused).
 * `--help` and `--version` win over everything else and have no other effect.
 */
export function readCommandLine<O extends Options>(command: Command<O>, argv: readonly string[]): CommandLine<O> {
  const { configArgs, toolArgs } = command.configArgs ? splitConfigArgs(argv) : { configArgs: [], toolArgs: [...argv] };
  const options = { ...command.options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } as const;
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: toolArgs, options, strict: true, allowPositionals: false }));
  } catch (err) {
    // A bad flag next to --help is still a request for help.
    if (toolArgs.includes('--help') || toolArgs.includes('-h'))
      return { kind: 'exit', code: ExitCode.ok, stdout: withNewline(command.usage), stderr: '' };
    return usageFailure(command, (err as Error).message);
  }
  if (values['help'] === true)
    return { kind: 'exit', code: ExitCode.ok, stdout: withNewline(command.usage), stderr: '' };
  if (values['version'] === true)
    return { kind: 'exit', code: ExitCode.ok, stdout: `${packageVersion()}\n`, stderr: '' };
  delete values['help'];
  delete values['version'];
  return { kind: 'run', values: values as CommandValues<O>, configArgs };
}

/** The exit of a bad command line: the message and the usage on stderr, 64. */
export function usageFailure(
  command: Pick<Command<Options>, 'name' | 'usage'>,
  message: string,
): CommandLine<Options> & { kind: 'exit' } {
  return {
    kind: 'exit',
    code: ExitCode.usage,
    stdout: '',
    stderr: `${command.name}: ${message}\n${withNewline(command.usage)}`,
  };
}

/** `readCommandLine` for a process: prints and exits on `--help`, `--version` and usage errors. */
export function commandLine<O extends Options>(
  command: Command<O>,
  argv: readonly string[] = process.argv.slice(2),
): { values: CommandValues<O>; configArgs: string[] } {
  const line = readCommandLine(command, argv);
  if (line.kind === 'exit') exitWith(line);
  return line;
}

/** Ends the process on a bad flag value found after parsing (exit 64, usage on stderr). */
export function usageError(command: Pick<Command<Options>, 'name' | 'usage'>, message: string): never {
  exitWith(usageFailure(command, message));
}

function exitWith(line: { code: number; stdout: string; stderr: string }): never {
  if (line.stdout) process.stdout.write(line.stdout);
  if (line.stderr) process.stderr.write(line.stderr);
  process.exit(line.code);
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Configuration arguments are the hub's spelling: `--environment` and keys with a `:` (`--Auth:Jwt:Secret=x`
 * or `--Auth:Jwt:Secret x`). Everything else belongs to the command.
 */
export function splitConfigArgs(argv: readonly string[]): { configArgs: string[]; toolArgs: string[] } {
  const configArgs: string[] = [];
  const toolArgs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const key = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : '';
    if (!(key.includes(':') || key.toLowerCase() === 'environment')) {
      toolArgs.push(arg);
      continue;
    }
    configArgs.push(arg);
    const next = argv[i + 1];
    if (!arg.includes('=') && next !== undefined && !next.startsWith('--')) configArgs.push(argv[++i]!);
  }
  return { configArgs, toolArgs };
}
