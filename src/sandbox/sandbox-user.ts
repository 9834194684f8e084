/**
 * Who a sandbox is on the host. bubblewrap maps the sandbox's user (uid 1000 inside) to the uid
 * that starts it, so a worker running as root would run every command as root outside its
 * namespaces: its files root's, and a set-uid binary it makes (`chmod 4755`) a root one for any
 * local user who runs it. So a root worker starts bubblewrap as the workdir's owner instead,
 * an unprivileged user: the user the workdir is handed to (AGENT_SANDBOX_UID, 1000 by default)
 * when root owns it. A worker running as anyone else runs its sandboxes as itself, as before.
 *
 * bubblewrap, run as that user, resolves the paths it binds with that user's rights. A workdir
 * under a directory the user cannot enter (`/root/.durable-agent/workspaces/…`) is first bound,
 * as root, at a staging point the user can reach, in a mount namespace of the command's own
 * (`unshare --mount`, then `mount --bind` of the workdir's descriptor, then `setpriv` to the
 * user): nothing of it shows in the host's mounts, and it costs two more processes per command.
 */
import { lstatSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';

export interface SandboxUser {
  /** Start bubblewrap as this host user (a root worker); undefined: as the worker itself. */
  uid?: number;
  gid?: number;
  /** The user cannot reach the workdir's path: bind it from the staging point (see above). */
  staged: boolean;
}

/** `sandboxUid`: AGENT_SANDBOX_UID; 0 keeps a root worker's sandboxes mapped to root (not advised). */
export function sandboxUserFor(
  workdir: { path: string; stats: Stats },
  sandboxUid: number,
  workerUid = process.getuid?.() ?? -1,
): SandboxUser {
  if (workerUid !== 0 || sandboxUid === 0) return { staged: false };
  const uid = workdir.stats.uid !== 0 ? workdir.stats.uid : sandboxUid;
  const gid = workdir.stats.uid !== 0 ? workdir.stats.gid : sandboxUid;
  return { uid, gid, staged: !canReach(workdir.path, uid, gid) };
}

/** Whether `uid`:`gid` may enter every directory above `path` (the operator's directories, not the session's). */
export function canReach(path: string, uid: number, gid: number): boolean {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    let info: Stats;
    try {
      info = lstatSync(directory);
    } catch {
      return false;
    }
    const bit = info.uid === uid ? 0o100 : info.gid === gid ? 0o010 : 0o001;
    if (!info.isDirectory() || (info.mode & bit) === 0) return false;
    if (directory === '/') return true;
  }
}
