/**
 * Argument parsing the commands share: node:util's parseArgs with its errors as usage errors,
 * numbers checked, positionals counted. Loads nothing beyond node:util (see command.ts).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error';

/** Strict parsing with positionals: an unknown or malformed option is a usage error (exit 2). */
export function parseOptions<const Options extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: Options,
) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--<name> N` as a turn number, or undefined when not given. */
export function turnOption(value: unknown, name = 'turn'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new UsageError(`--${name} takes a turn number, not ${String(value)}`);
  return Number(value);
}

/** `--<name> N` as a whole number, or undefined when not given. */
export function wholeNumberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, not ${value}`);
  return Number(value);
}

/** `args` when there are at least `count`, else the command's usage line as the error. */
export function positional(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`usage: durable-agent ${usage}`);
  return args;
}
