/**
 * A directory opened from its real path, from `/` one component at a time, none of them
 * followed if it is a link: the path of a workdir comes from outside the session, but a
 * session with a workdir above it could put a link in its place, and a workdir reached through
 * a link is not the one that was checked.
 */
import { constants, mkdirSync, openSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { closeQuietly, fdPath, O_PATH, openSubdirectory } from './proc-fd';

/** An `O_PATH` descriptor of the directory at `path`; with `create`, missing directories are made on the way. */
export function openRealDirectory(path: string, { create = false }: { create?: boolean } = {}): number {
  if (!isAbsolute(path)) throw new Error(`workdir ${path} is not an absolute path`);
  let fd = openSync('/', O_PATH | constants.O_DIRECTORY);
  try {
    for (const part of path.split('/').filter(Boolean)) {
      if (create) makeDirectory(fd, part);
      const next = openSubdirectory(fd, part);
      closeQuietly(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeQuietly(fd);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'ELOOP')
      throw Object.assign(
        new Error(`workdir ${path} is not a directory's real path (a part of it is a symlink or a file)`),
        { code: 'ENOTDIR' },
      );
    throw error;
  }
}

function makeDirectory(parent: number, name: string): void {
  try {
    mkdirSync(fdPath(parent, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
