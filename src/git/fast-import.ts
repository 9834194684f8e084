/**
 * The stream `git fast-import` reads to make a session's commit: a blob for each file written,
 * then one commit over the base commit with a `D` line per deletion and an `M` line per file.
 * Git reads nothing but this stream (no work tree, no index, no attributes), so what it commits
 * is exactly what the snapshots say. Paths are always C-quoted: a path is a line's last field,
 * and one holding a newline or a quote must not end it early (or start a command of its own).
 * The stream ends with `done`: a stream cut short (our reader failed, the worker died) makes
 * fast-import fail instead of committing part of it.
 */

/** What a path holds in the commit: a file, an executable, a symlink (its target as the blob). */
export type BlobMode = '100644' | '100755' | '120000';

/** A blob's bytes as the stream gets them: exactly `size` bytes in chunks, then whether they were right. */
export interface BlobContent {
  size: number;
  chunks: AsyncIterable<Buffer>;
  /** Asked once the chunks are consumed: why the bytes are not the file's (then the path is not committed), or undefined. */
  problem(): string | undefined;
  /** Releases what the bytes were read from (called whether or not they were all streamed). */
  close?(): void;
}

export interface BlobWrite {
  path: string;
  mode: BlobMode;
  /** Writes with the same key have the same bytes: the blob goes into the stream once. */
  key: string;
  /** The bytes, or the reason they cannot be had (the path is then not committed). */
  open(): Promise<BlobContent | { unavailable: string }>;
}

export interface ImportPlan {
  /** The ref fast-import leaves the commit at (one of ours, removed after). */
  ref: string;
  /** The commit the branch is at: the new commit's parent and starting tree. */
  from: string;
  message: string;
  /** Seconds since the epoch, for author and committer. */
  time: number;
  deletions: readonly string[];
  writes: readonly BlobWrite[];
}

const IDENTITY = 'durable-agent <durable-agent@localhost>';

/**
 * A path in C-style quotes, as fast-import unquotes it: `"`, `\` and control characters escaped
 * (octal), every other character as it is (the stream is UTF-8, like the snapshot's names).
 */
export function quotePath(path: string): string {
  let quoted = '"';
  for (const character of path) {
    const code = character.codePointAt(0)!;
    if (character === '"' || character === '\\') quoted += `\\${character}`;
    else if (character === '\n') quoted += '\\n';
    else if (code < 0x20 || code === 0x7f) quoted += `\\${code.toString(8).padStart(3, '0')}`;
    else quoted += character;
  }
  return `${quoted}"`;
}

/**
 * The stream, and (once it is consumed) the writes whose bytes could not be had or were not the
 * file's: their blobs are left out of the commit, which keeps what the base commit had there.
 */
export function importStream(plan: ImportPlan): { stream: AsyncIterable<Buffer>; failed: Map<string, string> } {
  const failed = new Map<string, string>();
  return { stream: generate(plan, failed), failed };
}

async function* generate(plan: ImportPlan, failed: Map<string, string>): AsyncGenerator<Buffer> {
  const marks = new Map<string, number | { problem: string }>();
  for (const write of plan.writes) {
    if (marks.has(write.key)) continue;
    const content = await write.open();
    if ('unavailable' in content) {
      marks.set(write.key, { problem: content.unavailable });
      continue;
    }
    const mark = marks.size + 1;
    try {
      yield line(`blob\nmark :${mark}\ndata ${content.size}`);
      let sent = 0;
      for await (const chunk of content.chunks) {
        sent += chunk.length;
        yield chunk;
      }
      // The count was promised in `data`: a source that broke it would corrupt the stream.
      if (sent !== content.size) throw new Error(`${write.path}: ${sent} bytes streamed, ${content.size} announced`);
    } finally {
      content.close?.();
    }
    yield line('');
    const problem = content.problem();
    marks.set(write.key, problem === undefined ? mark : { problem });
  }
  const message = Buffer.from(plan.message, 'utf8');
  yield line(
    `commit ${plan.ref}\nauthor ${IDENTITY} ${plan.time} +0000\ncommitter ${IDENTITY} ${plan.time} +0000\ndata ${message.length}`,
  );
  yield message;
  yield line(`\nfrom ${plan.from}`);
  // Deletions first: a file that became a directory (or the other way) is deleted, then written.
  for (const path of plan.deletions) yield line(`D ${quotePath(path)}`);
  for (const write of plan.writes) {
    const mark = marks.get(write.key)!;
    if (typeof mark === 'number') yield line(`M ${write.mode} :${mark} ${quotePath(write.path)}`);
    else failed.set(write.path, mark.problem);
  }
  yield line('\ndone');
}

const line = (text: string) => Buffer.from(`${text}\n`, 'utf8');
