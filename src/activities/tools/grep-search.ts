/**
 * Grep's matching, in a worker thread: a regular expression can backtrack for minutes
 * (`(a+)+$` on a 28-character line takes 14 s), and on the worker's own thread that would stop
 * heartbeats, every other session's activities and cancellation. In a thread it can be
 * terminated: at the deadline or when the call is cancelled, the search ends as an `is_error`
 * result and the worker never notices.
 *
 * The thread opens nothing: the files come to it as descriptors the main thread opened beneath
 * the workdir (regular files only, see src/workdir/), in batches, so at most one batch is open
 * at a time. The main thread owns them and closes each batch once the thread is done with it (or
 * is terminated): a descriptor is never closed twice.
 *
 * The thread's code is plain JavaScript in a string (eval: true), so it runs the same from
 * TypeScript sources (tsx, Jest) and from a build.
 */
import { Worker } from 'node:worker_threads';
import { closeQuietly } from '../../workdir/proc-fd';
import { ToolError } from './tool';

/** A file to search: a read descriptor of a regular file (the main thread's), and its name as shown. */
export interface GrepFile {
  fd: number;
  shown: string;
}

/** Files handed to the thread at once (and so open at once). */
const BATCH_FILES = 64;

export interface GrepJob {
  pattern: string;
  ignoreCase: boolean;
  mode: 'content' | 'files_with_matches' | 'count';
  lineNumbers: boolean;
  /** Context lines before and after each match (content mode). */
  before: number;
  after: number;
  /** The pattern may span lines, and . matches a newline. */
  multiline: boolean;
  /** Content mode: each (non-empty) match alone, one an entry, instead of its whole line (rg -o). */
  onlyMatching?: boolean;
  /** Entries collected at most (one more than the limit, to know the list was cut). */
  maxEntries: number;
  maxFileBytes: number;
  maxLineChars: number;
}

/** Longest a search may run before it is stopped (well inside the tool activity's timeout). */
export const GREP_TIMEOUT_MS = 30_000;

const SEARCH = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const job = workerData;
const regex = new RegExp(job.pattern, (job.ignoreCase ? 'i' : '') + (job.multiline ? 'gms' : ''));
const contextLines = !job.onlyMatching && (job.before > 0 || job.after > 0);
const every = new RegExp(job.pattern, 'g' + (job.ignoreCase ? 'i' : '') + (job.multiline ? 'ms' : ''));
/** rg -o: each non-empty match of a text, with the line it starts on. */
function onlyMatches(file, text, firstLine) {
  every.lastIndex = 0;
  for (let match = every.exec(text); match; match = every.exec(text)) {
    if (match[0].length === 0) { every.lastIndex++; continue; }
    if (entries.length >= job.maxEntries) return;
    const line = firstLine + (text.slice(0, match.index).match(/\\n/g) || []).length;
    entries.push(entry(file, line, match[0], true));
  }
}
const entries = [];
const cut = (line) => (line.length > job.maxLineChars ? line.slice(0, job.maxLineChars) + '…' : line);
// As ripgrep prints them: "path:12:text" for a matching line, "path-13-text" for context.
const entry = (file, index, text, matching) => {
  const separator = matching ? ':' : '-';
  return job.lineNumbers ? file.shown + separator + (index + 1) + separator + cut(text) : file.shown + separator + cut(text);
};
/** The lines a multiline match covers, and how many matches the text holds. */
function multilineMatches(text) {
  const starts = [0];
  for (let at = text.indexOf('\\n'); at >= 0; at = text.indexOf('\\n', at + 1)) starts.push(at + 1);
  const lineOf = (offset) => {
    let low = 0, high = starts.length - 1;
    while (low < high) { const middle = (low + high + 1) >> 1; if (starts[middle] <= offset) low = middle; else high = middle - 1; }
    return low;
  };
  const matched = new Set();
  let count = 0;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    count++;
    const first = lineOf(match.index);
    const last = lineOf(match.index + Math.max(0, match[0].length - 1));
    for (let line = first; line <= last; line++) matched.add(line);
    if (match[0].length === 0) regex.lastIndex++;
    if (job.mode === 'files_with_matches') break;
  }
  return { lines: [...matched].sort((a, b) => a - b), count };
}
function search(files) {
for (const file of files) {
  if (entries.length >= job.maxEntries) break;
  let buffer;
  try {
    // The descriptor was opened for this search as a regular file; it is the main thread's to close.
    const info = fs.fstatSync(file.fd);
    if (!info.isFile() || info.size > job.maxFileBytes) continue;
    buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = fs.readSync(file.fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    buffer = buffer.subarray(0, filled);
  } catch {
    continue;
  }
  if (buffer.subarray(0, 8192).includes(0)) continue;
  const text = buffer.toString('utf8');
  const lines = text.split('\\n');
  let matching;
  let count;
  if (job.multiline) {
    ({ lines: matching, count } = multilineMatches(text));
  } else {
    matching = [];
    for (let index = 0; index < lines.length; index++) {
      if (!regex.test(lines[index])) continue;
      matching.push(index);
      if (job.mode === 'files_with_matches') break;
      if (job.mode === 'content' && !contextLines && matching.length >= job.maxEntries) break;
    }
    count = matching.length;
  }
  if (count === 0) continue;
  if (job.mode === 'files_with_matches') entries.push(file.shown);
  else if (job.mode === 'count') entries.push(file.shown + ':' + count);
  else if (job.onlyMatching) {
    if (job.multiline) onlyMatches(file, text, 0);
    else for (const index of matching) onlyMatches(file, lines[index], index);
  } else if (!contextLines) {
    for (const index of matching) {
      if (entries.length >= job.maxEntries) break;
      entries.push(entry(file, index, lines[index], true));
    }
  } else {
    // Each match with its context; overlapping ranges merge, and "--" separates the groups.
    const isMatch = new Set(matching);
    let previousEnd = -2;
    for (const index of matching) {
      const from = Math.max(0, index - job.before, previousEnd + 1);
      const to = Math.min(lines.length - 1, index + job.after);
      if (from > previousEnd + 1 && entries.length > 0) entries.push('--');
      for (let line = from; line <= to && entries.length < job.maxEntries; line++) entries.push(entry(file, line, lines[line], isMatch.has(line)));
      previousEnd = Math.max(previousEnd, to);
      if (entries.length >= job.maxEntries) break;
    }
  }
}
}
let sent = 0;
parentPort.on('message', (files) => {
  search(files);
  parentPort.postMessage({ entries: entries.slice(sent), full: entries.length >= job.maxEntries });
  sent = entries.length;
});
`;

/**
 * One search: files go in with `add` (a batch at a time reaches the thread), `finish` gives the
 * entries (paths, lines or counts). It fails with a ToolError when it took too long or was
 * cancelled; `close` ends the thread and closes whatever descriptors are still held, always.
 */
export class GrepSearch {
  private readonly thread: Worker;
  private readonly entries: string[] = [];
  private batch: GrepFile[] = [];
  private full = false;
  private failure: ToolError | undefined;
  private readonly failed: Promise<never>;
  private readonly deadline: NodeJS.Timeout;
  private readonly onAbort: () => void;

  constructor(
    private readonly job: GrepJob,
    private readonly signal: AbortSignal,
    timeoutMs = GREP_TIMEOUT_MS,
  ) {
    // Small heaps: a search holds one file at a time.
    this.thread = new Worker(SEARCH, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    let fail!: (error: ToolError) => void;
    this.failed = new Promise<never>((_resolve, reject) => (fail = reject));
    this.failed.catch(() => {});
    const stop = (error: ToolError) => {
      if (this.failure) return;
      this.failure = error;
      void this.thread.terminate();
      fail(error);
    };
    this.onAbort = () => stop(new ToolError('The search was cancelled.'));
    this.deadline = setTimeout(
      () =>
        stop(
          new ToolError(
            `The search was stopped after ${timeoutMs / 1000} s. The pattern may backtrack catastrophically (nested quantifiers such as (a+)+): ` +
              'simplify it, or narrow the search with path or glob.',
          ),
        ),
      timeoutMs,
    );
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.thread.once('error', (error) => stop(new ToolError(`The search failed: ${error.message}`)));
    this.thread.once('exit', (code) => stop(new ToolError(`The search ended unexpectedly (exit code ${code}).`)));
    if (signal.aborted) this.onAbort();
  }

  /** Adds a file (its descriptor is this search's to close from now on); false once enough entries are found. */
  async add(file: GrepFile): Promise<boolean> {
    this.batch.push(file);
    if (this.batch.length >= BATCH_FILES) await this.flush();
    return !this.full;
  }

  async finish(): Promise<string[]> {
    await this.flush();
    return this.entries;
  }

  /** Ends the thread, then closes what it was given: a descriptor number is never reused under a thread still reading it. */
  async close(): Promise<void> {
    clearTimeout(this.deadline);
    this.signal.removeEventListener('abort', this.onAbort);
    await this.thread.terminate();
    this.closeBatch();
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.batch.length === 0 || this.full) return this.closeBatch();
    const reply = new Promise<{ entries: string[]; full: boolean }>((resolve) => this.thread.once('message', resolve));
    this.thread.postMessage(this.batch);
    // On a failure the batch stays open: close() closes it once the thread is gone.
    const { entries, full } = await Promise.race([reply, this.failed]);
    this.entries.push(...entries);
    this.full = full;
    this.closeBatch();
  }

  private closeBatch(): void {
    for (const file of this.batch.splice(0)) closeQuietly(file.fd);
  }
}
