/**
 * A path the session may not use, or a file that cannot be used as asked: the model can act on
 * it (tools turn it into an `is_error` result, never a retry). Messages name only what the
 * session already knows — its own path and workdir — never a symlink's target outside the
 * workdir, nor anything of the worker's.
 */
export class WorkdirRefusal extends Error {
  override readonly name = 'WorkdirRefusal';

  constructor(
    message: string,
    /** The same in a few words, for notes that name the file themselves ("not a regular file (a FIFO)"). */
    readonly reason = 'cannot be used',
  ) {
    super(message);
  }
}

export function outside(requested: string, workdir: string): WorkdirRefusal {
  return new WorkdirRefusal(
    `Path ${requested} is outside the working directory ${workdir}. Only files inside the working directory can be accessed.`,
    'outside the working directory',
  );
}

export function linkLeadsOutside(requested: string, workdir: string): WorkdirRefusal {
  return new WorkdirRefusal(
    `Path ${requested} goes through a symbolic link that leads outside the working directory ${workdir}. Only files inside the working directory can be accessed.`,
    'a symbolic link leading outside the working directory',
  );
}

/** Why a file could not be read, in a few words: the refusal's reason, or the system's error code. */
export function unreadableReason(error: unknown): string {
  if (error instanceof WorkdirRefusal) return error.reason;
  return (error as NodeJS.ErrnoException).code ?? 'error';
}

/** What a non-regular file is, for messages ("… is a FIFO"). */
export function kindOf(stats: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}
