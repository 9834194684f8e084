/**
 * What an `npx` stdio server asks to run, read from its configuration: `npx [-y|--yes] [--] <pkg>
 * [args…]`, where `<pkg>` is a registry package (`name`, `@scope/name`, either with `@<version,
 * range or tag>`). Anything else (another flag, a `file:`, git or URL spec, `-p`) is left to npx
 * as written. Pure: the configuration is the session's, so everything here is checked.
 */

export interface NpxPackageCommand {
  /** The package as written (`@modelcontextprotocol/server-memory@0.6.2`). */
  spec: string;
  /** Its name without the version (`@modelcontextprotocol/server-memory`). */
  name: string;
  /** The server's own arguments, after the package. */
  args: string[];
}

/** npm's rules for a package name (lower case, URL-safe, at most 214 characters), with an optional scope. */
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** A version, range or dist-tag: no spaces, quotes, slashes or colons (those are other kinds of spec). */
const VERSION = /^[A-Za-z0-9.^~<>=*|+_-]{1,100}$/;
const YES_FLAGS = new Set(['-y', '--yes']);

export function npxPackageCommand(command: string, args: readonly string[]): NpxPackageCommand | undefined {
  if (command !== 'npx') return undefined;
  let index = 0;
  while (index < args.length && YES_FLAGS.has(args[index]!)) index++;
  if (args[index] === '--') index++;
  const spec = args[index];
  if (spec === undefined) return undefined;
  const name = packageName(spec);
  return name ? { spec, name, args: args.slice(index + 1) } : undefined;
}

/** The name of a registry spec (`name`, `name@1.2`, `@scope/name@latest`); undefined for any other spec. */
export function packageName(spec: string): string | undefined {
  if (spec.length > 300) return undefined;
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at === -1 ? spec : spec.slice(0, at);
  const version = at === -1 ? undefined : spec.slice(at + 1);
  if (name.length > 214 || !PACKAGE_NAME.test(name)) return undefined;
  if (version !== undefined && !VERSION.test(version)) return undefined;
  return name;
}

/**
 * The command npx would run from an installed package (libnpmexec's rule): its only bin, else
 * the bin named as the package without its scope. `bin` is the package's own field: untrusted.
 */
export function binOf(name: string, bin: unknown): string | undefined {
  const base = name.replace(/^@[^/]+\//, '');
  const bins = typeof bin === 'string' ? { [base]: bin } : bin !== null && typeof bin === 'object' ? bin : {};
  const names = Object.keys(bins);
  const chosen = names.length === 1 ? names[0] : names.includes(base) ? base : undefined;
  return chosen !== undefined && isBinName(chosen) ? chosen : undefined;
}

/** A file name in `node_modules/.bin`: no path, nothing hidden. */
export function isBinName(value: string): boolean {
  return /^[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,199}$/.test(value);
}
