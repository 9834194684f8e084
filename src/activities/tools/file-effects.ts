import { basename } from 'node:path';
import { formatBytes } from '../../workdir/read-regular';
import type { Workdir } from '../../workdir/workdir';
import { inWorkdir, sha256 } from './paths';
import { assertSettingsChangeApproved } from './settings-guard';
import { ToolError, type ToolContext, type ToolOutput } from './tool';

/** Files Write and Edit change, at most (the same as Read loads). */
const EDITABLE_MAX_BYTES = 10 * 1024 * 1024;

/** Current content of a file of the workdir, or null when it does not exist. */
export async function readIfExists(workdir: Workdir, path: string): Promise<string | null> {
  try {
    const { data } = await workdir.readFile(path, path, {
      maxBytes: EDITABLE_MAX_BYTES,
      tooLarge: (bytes) =>
        `${path} is ${formatBytes(bytes)}, more than Write and Edit change (${formatBytes(EDITABLE_MAX_BYTES)}). Use Bash to change it.`,
    });
    return data.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The file a Write or Edit targets, inside the workdir, with its content now; `replayed` is the
 * earlier attempt's result when this is a retry whose change already landed.
 */
export async function fileToChange(
  context: ToolContext,
  filePath: string,
): Promise<{ path: string; current: string | null; replayed?: ToolOutput }> {
  const { path, current } = await inWorkdir(context.workdir, async (workdir) => {
    const path = workdir.realPath(filePath);
    assertSettingsChangeApproved(context, path);
    return { path, current: await readIfExists(workdir, path) };
  });
  return { path, current, replayed: await alreadyApplied(context, path, current) };
}

/**
 * On a retried call, the earlier attempt may already have changed the file. If the journal says
 * so and the file is exactly as that attempt left it, report the same success again.
 */
export async function alreadyApplied(
  context: ToolContext,
  path: string,
  current: string | null,
): Promise<ToolOutput | undefined> {
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
 * Records the intent, then replaces the file atomically (write a temporary file, rename it), both
 * beneath the workdir's descriptor: a directory swapped for a symlink meanwhile is refused, never
 * followed. The temporary file's name is the call's own, so a retry after a crash mid-write
 * overwrites and renames the same file instead of leaving one behind.
 */
export async function writeFileOnce(
  context: ToolContext,
  path: string,
  before: string | null,
  after: string,
  message: string,
): Promise<ToolOutput> {
  const afterHash = sha256(after);
  const temporaryName = temporaryNameFor(basename(path), context.callKey);
  await context.journal.record(context.sessionId, context.callKey, {
    path,
    beforeHash: before === null ? null : sha256(before),
    afterHash,
    message,
    temporary: `${path.slice(0, path.length - basename(path).length)}${temporaryName}`,
  });
  await inWorkdir(context.workdir, (workdir) => workdir.writeFile(path, { data: after, temporaryName }));
  return { text: message, fileState: { path, sha256: afterHash } };
}

/** `.<name>.<call>.agent-tmp` beside the file; a long name is shortened to stay within 255 bytes. */
function temporaryNameFor(name: string, callKey: string): string {
  const stem = Buffer.byteLength(name) > 200 ? sha256(name).slice(0, 16) : name;
  return `${stem}.${sha256(callKey).slice(0, 12)}.agent-tmp`;
}
