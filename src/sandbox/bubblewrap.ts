/**
 * Bubblewrap (`bwrap`, Debian package `bubblewrap`): each command runs in its own namespaces,
 * seeing the system read-only, its session's workdir read-write at its own path, a private /tmp
 * and home, its own /proc with only its own processes, its own network namespace (only a
 * loopback; the filtered network reaches the worker's proxy through one socket), as an
 * unprivileged user; it dies with the worker, and every process it started dies with it (the
 * PID namespace ends with its first process).
 */
import { existsSync, lstatSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EGRESS_SOCKET } from './launcher';

/** The uid and home of the sandbox's user: not root, whatever the worker runs as. */
export const SANDBOX_UID = 1000;
export const SANDBOX_HOME = '/home/agent';
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** What programs need of /etc; no shadow files, no credentials, no user's configuration. */
const ETC = [
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'resolv.conf',
  'hosts',
  'host.conf',
  'nsswitch.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'mime.types',
  'protocols',
  'services',
  'os-release',
  'debian_version',
  'bash.bashrc',
  'profile',
  'inputrc',
  'gitconfig',
  'java-17-openjdk',
  'python3',
  'perl',
];

/** The system, read-only: /usr, the /bin and /lib links or folders beside it, and /opt. */
const SYSTEM = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];

export interface BubblewrapCall {
  workdir: string;
  identity: IdentityFiles;
  /** Where the workdir is bound from: itself, or the staging point a root worker bound it at (sandbox-user.ts). */
  workdirSource?: string;
  /** `host`: the worker's network namespace; otherwise one of the command's own, with only a loopback. */
  network: 'none' | 'host' | 'filtered';
  /** filtered: the egress proxy's socket on the host, bound at EGRESS_SOCKET inside. */
  egressSocket?: string;
  environment: Record<string, string>;
  /** Directories of the worker's, bound read-only at `target` (after the workdir, so never under it). */
  readOnlyBinds?: { source: string; target: string }[];
}

/** A sandbox's passwd and group, on the host: bound read-only over its /etc/passwd and /etc/group. */
export interface IdentityFiles {
  passwd: string;
  group: string;
}

/**
 * Writes the passwd and group that name the sandbox's user (programs look themselves up) into
 * `folder`, a directory of the worker's own made for this (never a fixed name in /tmp, which
 * another local user could make first).
 */
export function writeIdentityFiles(folder: string): IdentityFiles {
  const passwd = join(folder, 'passwd');
  const group = join(folder, 'group');
  writeFileSync(
    passwd,
    `root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:${SANDBOX_UID}:${SANDBOX_UID}:agent:${SANDBOX_HOME}:/bin/bash\n`,
    { flag: 'wx', mode: 0o644 },
  );
  writeFileSync(group, `root:x:0:\nagent:x:${SANDBOX_UID}:\n`, { flag: 'wx', mode: 0o644 });
  return { passwd, group };
}

/** The `bwrap` arguments for one command (to be followed by `--` and the command itself). */
export function bubblewrapArgs(call: BubblewrapCall): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const path of SYSTEM) {
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  for (const name of ETC) args.push('--ro-bind-try', join('/etc', name), join('/etc', name));
  const { passwd, group } = call.identity;
  args.push('--ro-bind', passwd, '/etc/passwd', '--ro-bind', group, '/etc/group');
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    SANDBOX_HOME,
    '--bind',
    call.workdirSource ?? call.workdir,
    call.workdir,
    '--chdir',
    call.workdir,
  );
  if (call.network === 'filtered' && call.egressSocket) args.push('--ro-bind', call.egressSocket, EGRESS_SOCKET);
  for (const bind of call.readOnlyBinds ?? []) args.push('--ro-bind', bind.source, bind.target);
  args.push(
    '--unshare-all',
    ...(call.network === 'host' ? ['--share-net'] : []),
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
  );
  args.push('--hostname', 'sandbox', '--die-with-parent', '--new-session', '--clearenv');
  for (const [name, value] of Object.entries(call.environment)) args.push('--setenv', name, value);
  return args;
}

/** bwrap's own environment: nothing of the worker's (its init process would carry it). */
export const BUBBLEWRAP_ENVIRONMENT = { PATH: SANDBOX_PATH };
