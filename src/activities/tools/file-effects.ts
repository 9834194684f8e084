import { mkdir, rename, stat, writeFile, chmod } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolveInWorkdir, sha256 } from './paths';
import { formatBytes, readRegularFile } from './regular-file';
import { assertSettingsChangeApproved } from './settings-guard';

/** Files Write and Edit change, at most (the same as Read loads). */
const EDITABLE_MAX_BYTES = 10 * 1024 * 1024;
import { ToolError, type ToolContext, type ToolOutput } from './tool';

/** Current content of a file, or null when it does not exist. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    const file = await readRegularFile(path, path, {
      maxBytes: EDITABLE_MAX_BYTES,
      text: false,
      tooLarge: (bytes) => `${path} is ${formatBytes(bytes)}, more than Write and Edit change (${formatBytes(EDITABLE_MAX_BYTES)}). Use Bash to change it.`,
    });
    return file.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The file a Write or Edit targets, inside the workdir, with its content now; `replayed` is the
 * earlier attempt's result when this is a retry whose change already landed.
 */
export async function fileToChange(context: ToolContext, filePath: string): Promise<{ path: string; current: string | null; replayed?: ToolOutput }> {
  const path = resolveInWorkdir(context.workdir, filePath);
  assertSettingsChangeApproved(context, path);
  const current = await readIfExists(path);
  return { path, current, replayed: await alreadyApplied(context, path, current) };
}

/**
 * On a retried call, the earlier attempt may already have changed the file. If the journal says
 * so and the file is exactly as that attempt left it, report the same success again.
 */
export async function alreadyApplied(context: ToolContext, path: string, current: string | null): Promise<ToolOutput | undefined> {
  const record = await context.journal.find(context.sessionId, context.callKey);
  if (!record || record.path !== path || current === null || sha256(current) !== record.afterHash) return undefined;
  return { text: record.message, fileState: { path, sha256: record.afterHash } };
}

/** The session must have read the file, and the file must not have changed since. */
export function assertReadAndUnchanged(context: ToolContext, path: string, current: string, verb: string): void {
  const known = context.knownFiles.get(path);
  if (known === undefined) {
    throw new ToolError(`File has not been read yet. Read it first before ${verb} it.`);
  }
  if (known !== sha256(current)) {
    throw new ToolError(
      'File has been modified since it was last read, either by the user, by a command, or by a linter. ' +
        `Read it again before ${verb} it.`,
    );
  }
}

/**
 * Records the intent, then replaces the file atomically (write a temporary file, rename it). The
 * temporary file's name is the call's own, so a retry after a crash mid-write overwrites and
 * renames the same file instead of leaving one behind.
 */
export async function writeFileOnce(
  context: ToolContext,
  path: string,
  before: string | null,
  after: string,
  message: string,
): Promise<ToolOutput> {
  const afterHash = sha256(after);
  const temporary = `${path}.${sha256(context.callKey).slice(0, 12)}.agent-tmp`;
  await context.journal.record(context.sessionId, context.callKey, {
    path,
    beforeHash: before === null ? null : sha256(before),
    afterHash,
    message,
    temporary,
  });
  await mkdir(dirname(path), { recursive: true });
  const mode = await stat(path).then(
    (info) => info.mode,
    () => undefined,
  );
  await writeFile(temporary, after, 'utf8');
  if (mode !== undefined) await chmod(temporary, mode);
  await rename(temporary, path);
  return { text: message, fileState: { path, sha256: afterHash } };
}
