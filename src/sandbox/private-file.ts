/**
 * A file the worker writes for one command to read (a hook's transcript): in a directory of its
 * own under the worker's temporary directory, never in the workdir (a session cannot plant a link
 * there), bound read-only at the same path into the command's sandbox, and removed once the
 * command is done. The directory's name is random and it cannot be listed (0711); the file is
 * world-readable (0644) because a root worker's sandbox runs as the workdir's owner.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateFile {
  path: string;
  /** What the command's sandbox binds read-only (the directory, at its own path). */
  bind: { source: string; target: string };
}

export async function withPrivateFile<T>(
  name: string,
  content: string,
  use: (file: PrivateFile) => Promise<T>,
): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'durable-agent-file-'));
  try {
    const path = join(directory, name);
    await writeFile(path, content, { mode: 0o644, flag: 'wx' });
    await chmod(directory, 0o711);
    return await use({ path, bind: { source: directory, target: directory } });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
