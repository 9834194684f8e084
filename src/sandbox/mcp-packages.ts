/**
 * The package cache of `npx` stdio servers (AGENT_MCP_PACKAGE_DIR). Started as configured, npx
 * downloads its package on every session (the sandbox's home is empty): 20 s and more before a
 * server lists its tools. npm cannot use a read-only cache (every npx run writes to it, even with
 * `--offline`: EROFS), and a cache every session could write would let one session plant a
 * package another session runs. So the worker installs each package once, in a sandbox of its
 * own, and sessions run it from a read-only mount:
 *
 * - one directory per package spec and npm configuration (a hash of both), so what a package's
 *   install scripts write reaches only sessions that run that same package anyway;
 * - installed by `npm install` in a sandbox whose only writable paths are that directory and a
 *   private /tmp, with the worker's network policy and npm settings, never the session's
 *   (`sandboxEnv`, the server's `env`, the workdir's `.npmrc` play no part in what is installed);
 * - bound read-only into the server's sandbox, which runs its bin directly (no npm at start);
 * - kept by the worker's own files beside those directories, never read from them: the worker
 *   does not open what a sandbox wrote. A spec without a version stays at the version first
 *   installed until its directory is removed.
 *
 * (Here, beside bubblewrap's own files, rather than under mcp/: it handles the worker's own
 * directory by path, never a session's, which is what mcp/ may not do.)
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binOf, isBinName, type NpxPackageCommand, npxPackageCommand } from './npx-command';
import { shellWord } from './shell-word';
import type { CommandSandbox } from './command-sandbox';

/** Where a package's directory appears inside a server's sandbox. */
const SANDBOX_PACKAGES = '/run/durable-agent/mcp-packages';
/** The line the install prints with the package's `bin` field. */
const BIN_MARK = 'DURABLE_AGENT_PACKAGE_BIN=';

/** How a server is started: its command and arguments, and the directories bound read-only for it. */
export interface ServerLaunch {
  command: string;
  args: string[];
  readOnlyBinds: { source: string; target: string }[];
}

interface Installed {
  spec: string;
  bin: string;
}

export class McpPackages {
  private readonly installing = new Map<string, Promise<Installed | undefined>>();

  constructor(
    private readonly root: string,
    private readonly sandbox: CommandSandbox,
    /** The worker's npm settings that commands see (AGENT_SANDBOX_PASS_ENV): part of what is installed. */
    private readonly npmSettings: Record<string, string> = {},
  ) {}

  /**
   * How to start `command args`: from the installed package when it is an npx package (installed
   * now if it is not yet, within `timeoutMs`), else undefined (run as configured).
   */
  async launch(command: string, args: readonly string[], timeoutMs: number): Promise<ServerLaunch | undefined> {
    const npx = npxPackageCommand(command, args);
    if (!npx || this.sandbox.kind !== 'bwrap') return undefined;
    const key = this.keyOf(npx.spec);
    // A directory that cannot be made or a sandbox that cannot start: the server runs npx as written.
    const installed = this.ready(key) ?? (await this.installOnce(key, npx, timeoutMs).catch(() => undefined));
    if (!installed) return undefined;
    const target = `${SANDBOX_PACKAGES}/${key}`;
    return {
      command: `${target}/node_modules/.bin/${installed.bin}`,
      args: npx.args,
      readOnlyBinds: [{ source: join(this.root, key), target }],
    };
  }

  private keyOf(spec: string): string {
    const settings = Object.entries(this.npmSettings).sort(([a], [b]) => a.localeCompare(b));
    return createHash('sha256').update(JSON.stringify({ spec, settings })).digest('hex').slice(0, 32);
  }

  /** The package as installed before (by this worker or another on the host), from the worker's own record. */
  private ready(key: string): Installed | undefined {
    try {
      // Its directory deleted (to move a package on): installed again.
      if (!lstatSync(join(this.root, key)).isDirectory()) return undefined;
      const record = JSON.parse(readFileSync(join(this.root, `${key}.json`), 'utf8')) as Partial<Installed>;
      return typeof record.bin === 'string' && isBinName(record.bin) && typeof record.spec === 'string'
        ? { spec: record.spec, bin: record.bin }
        : undefined;
    } catch {
      return undefined;
    }
  }

  private installOnce(key: string, npx: NpxPackageCommand, timeoutMs: number): Promise<Installed | undefined> {
    const running = this.installing.get(key);
    if (running) return running;
    const install = this.install(key, npx, timeoutMs).finally(() => this.installing.delete(key));
    this.installing.set(key, install);
    return install;
  }

  /**
   * Installs into a fresh directory, then renames it into place: a worker killed half-way leaves
   * only a `.install-` directory, and two workers installing at once both succeed (the second
   * one's copy is dropped). An install that fails leaves nothing: the server runs npx as configured.
   */
  private async install(key: string, npx: NpxPackageCommand, timeoutMs: number): Promise<Installed | undefined> {
    mkdirSync(this.root, { recursive: true, mode: 0o755 });
    // The sandboxes' users read the packages (bubblewrap binds them as that user): the worker's own directory, open to read.
    chmodSync(this.root, 0o755);
    const staging = mkdtempSync(join(this.root, '.install-'));
    chmodSync(staging, 0o755);
    try {
      const output = await this.run(installScript(npx), staging, timeoutMs);
      const bin = binFromOutput(npx.name, output);
      if (!bin) return undefined;
      try {
        renameSync(staging, join(this.root, key));
      } catch {
        // Another worker put its copy in place first.
        return this.ready(key);
      }
      const installed = { spec: npx.spec, bin };
      writeFileSync(join(this.root, `${key}.json`), JSON.stringify(installed));
      return installed;
    } finally {
      // The install's sandbox is gone (its processes die with it): nothing writes here any more.
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** The install's stdout, or '' when it failed or took longer than `timeoutMs` (then it is killed). */
  private async run(script: string, directory: string, timeoutMs: number): Promise<string> {
    // No session's wishes: the worker's network policy and environment only.
    const child = await this.sandbox.start(script, directory, {}, { stdin: false });
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-20_000);
    });
    child.stderr!.resume();
    const timer = setTimeout(() => killGroup(child.pid), timeoutMs);
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('close', (exitCode) => resolve(exitCode));
    });
    clearTimeout(timer);
    return code === 0 ? stdout : '';
  }
}

/**
 * In the install's sandbox (its working directory is the new package directory): npm with a
 * private cache, then the package's `bin` field printed for the worker to choose from.
 */
function installScript(npx: NpxPackageCommand): string {
  const printBin =
    `const p=require(require('path').resolve('node_modules',process.argv[1],'package.json'));` +
    `console.log('${BIN_MARK}'+JSON.stringify(p.bin===undefined?null:p.bin))`;
  return [
    'export npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false',
    // The sandbox's proxy as npm's own settings (it skips the variables for some registries), for
    // every host: nothing the install needs is on the sandbox's own loopback.
    'if [ -n "${HTTP_PROXY:-}" ]; then export npm_config_proxy="$HTTP_PROXY" npm_config_https_proxy="$HTTPS_PROXY"; fi',
    'unset NO_PROXY no_proxy npm_config_noproxy',
    `npm install --no-save --no-package-lock --prefix . -- ${shellWord(npx.spec)} >&2`,
    `node -e ${shellWord(printBin)} ${shellWord(npx.name)}`,
  ].join(' && ');
}

/** The bin npx would run, from the install's (untrusted) output. */
function binFromOutput(name: string, output: string): string | undefined {
  const line = output.split('\n').find((candidate) => candidate.startsWith(BIN_MARK));
  if (!line) return undefined;
  try {
    return binOf(name, JSON.parse(line.slice(BIN_MARK.length)));
  } catch {
    return undefined;
  }
}

/** The worker's npm settings (`npm_config_*`): a package installed under other settings is another package. */
export function npmSettings(environment: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter(
      (entry): entry is [string, string] => /^npm_config_/i.test(entry[0]) && entry[1] !== undefined,
    ),
  );
}

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
