/**
 * Grep's matching, in a worker thread: a regular expression can backtrack for minutes
 * (`(a+)+$` on a 28-character line takes 14 s), and on the worker's own thread that would stop
 * heartbeats, every other session's activities and cancellation. In a thread it can be
 * terminated: at the deadline or when the call is cancelled, the search ends as an `is_error`
 * result and the worker never notices.
 *
 * The thread's code is plain JavaScript in a string (eval: true), so it runs the same from
 * TypeScript sources (tsx, Jest) and from a build.
 */
import { Worker } from 'node:worker_threads';
import { ToolError } from './tool';

export interface GrepJob {
  files: { path: string; shown: string }[];
  pattern: string;
  ignoreCase: boolean;
  mode: 'content' | 'files_with_matches' | 'count';
  lineNumbers: boolean;
  /** Context lines before and after each match (content mode). */
  before: number;
  after: number;
  /** The pattern may span lines, and . matches a newline. */
  multiline: boolean;
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
const contextLines = job.before > 0 || job.after > 0;
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
for (const file of job.files) {
  if (entries.length >= job.maxEntries) break;
  let buffer;
  try {
    // Non-blocking, not through symlinks, regular files only: a FIFO swapped in is skipped.
    const fd = fs.openSync(file.path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    try {
      const info = fs.fstatSync(fd);
      if (!info.isFile() || info.size > job.maxFileBytes) continue;
      buffer = Buffer.alloc(info.size);
      let filled = 0;
      while (filled < buffer.length) {
        const read = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (read === 0) break;
        filled += read;
      }
      buffer = buffer.subarray(0, filled);
    } finally {
      fs.closeSync(fd);
    }
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
  else if (!contextLines) {
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
parentPort.postMessage(entries);
`;

/** The entries of a search (paths, lines or counts), or a ToolError when it took too long. */
export function runGrep(job: GrepJob, { signal, timeoutMs = GREP_TIMEOUT_MS }: { signal: AbortSignal; timeoutMs?: number }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // Small heaps: a search holds one file at a time.
    const thread = new Worker(SEARCH, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal.removeEventListener('abort', onAbort);
      void thread.terminate();
      outcome();
    };
    const onAbort = () => finish(() => reject(new ToolError('The search was cancelled.')));
    const deadline = setTimeout(
      () =>
        finish(() =>
          reject(
            new ToolError(
              `The search was stopped after ${timeoutMs / 1000} s. The pattern may backtrack catastrophically (nested quantifiers such as (a+)+): ` +
                'simplify it, or narrow the search with path or glob.',
            ),
          ),
        ),
      timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    thread.once('message', (entries: string[]) => finish(() => resolve(entries)));
    thread.once('error', (error) => finish(() => reject(new ToolError(`The search failed: ${error.message}`))));
    thread.once('exit', (code) => finish(() => reject(new ToolError(`The search ended unexpectedly (exit code ${code}).`))));
    if (signal.aborted) onAbort();
  });
}
