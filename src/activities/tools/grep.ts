import { z } from 'zod';
import type { Workdir } from '../../workdir/workdir';
import { confinedPattern, visitFiles } from './file-search';
import { GREP_TIMEOUT_MS, GrepSearch, type GrepJob } from './grep-search';
import { displayPath, inWorkdir } from './paths';
import { defineTool, ToolError } from './tool';
import { FILE_TYPES, fileOfType } from './file-types';

/** Entries returned when head_limit is unset (Claude Code's default). */
export const DEFAULT_HEAD_LIMIT = 250;
/**
 * Entries collected at most with `head_limit: 0` ("unlimited"): the result is then cut to the
 * tool result cap (TOOL_RESULT_MAX_CHARS, the middle goes) like any other long output.
 */
export const UNLIMITED_ENTRIES = 20_000;
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 500;

export const grepTool = defineTool({
  name: 'Grep',
  description: [
    'Searches file contents with a regular expression (JavaScript syntax) in the working directory.',
    '- output_mode: "files_with_matches" (default, paths only), "content" (matching lines), or "count".',
    '- glob filters files (e.g. "*.ts", "src/**/*.js"); path is a file or directory (default: the working directory).',
    '- "-i": case-insensitive; "-n": line numbers in content mode (default true); "-o": only the matched parts (content mode).',
    `- head_limit: entries returned (default ${DEFAULT_HEAD_LIMIT}; 0 for all, sparingly); offset skips the first entries (pagination).`,
    '- "-A" / "-B" / "-C" (or context): lines of context after / before / around each match (content mode), as ripgrep prints them.',
    '- type: a file type (js, ts, py, rust, go, java, …), faster and surer than a glob for one language.',
    '- multiline: the pattern may span lines, and . matches a newline.',
    '- node_modules, .git and binary files are skipped.',
    `- A search stops after ${GREP_TIMEOUT_MS / 1000} s: avoid nested quantifiers such as (a+)+.`,
  ].join('\n'),
  schema: z
    .object({
      pattern: z.string().min(1).describe('The regular expression to search for'),
      path: z.string().optional().describe('File or directory to search in'),
      glob: z.string().optional().describe('Glob pattern to filter files'),
      output_mode: z.enum(['content', 'files_with_matches', 'count']).optional(),
      '-i': z.boolean().optional().describe('Case-insensitive search'),
      '-n': z.boolean().optional().describe('Show line numbers (content mode). Defaults to true'),
      '-o': z
        .boolean()
        .optional()
        .describe('Print only the matched (non-empty) parts, one match per output line (content mode)'),
      '-A': z.number().int().min(0).max(100).optional().describe('Lines of context after each match (content mode)'),
      '-B': z.number().int().min(0).max(100).optional().describe('Lines of context before each match (content mode)'),
      '-C': z.number().int().min(0).max(100).optional().describe('Alias for context'),
      context: z
        .number()
        .int()
        .min(0)
        .max(100)
        .optional()
        .describe('Lines of context before and after each match (content mode)'),
      type: z.string().optional().describe('File type to search (rg --type): js, ts, py, rust, go, java, …'),
      multiline: z.boolean().optional().describe('Let the pattern span lines; . matches newlines'),
      head_limit: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(`Limit output to the first N entries (default ${DEFAULT_HEAD_LIMIT}); 0 for unlimited`),
      offset: z.number().int().min(0).optional().describe('Skip the first N entries before applying head_limit'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  labelsItself: true,
  // Claude Code's Read rules cover the tools that read files: `Read(./.env)` refuses a search of it.
  ruleNames: ['Read'],
  rulePath: (input) => input.path ?? '.',
  subject: (input) => input.pattern,
  summarize: (input) =>
    `Grep ${input.pattern}${input.path ? ` in ${input.path}` : ''}${input.glob ? ` (${input.glob})` : ''}`,
  async execute(input, context) {
    try {
      new RegExp(input.pattern, (input['-i'] ? 'i' : '') + (input.multiline ? 'gms' : ''));
    } catch (error) {
      throw new ToolError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const type = input.type === undefined ? undefined : FILE_TYPES[input.type.toLowerCase()];
    if (input.type !== undefined && !type)
      throw new ToolError(
        `Unknown file type "${input.type}". Known types: ${Object.keys(FILE_TYPES).join(', ')}. Or use glob.`,
      );
    const mode = input.output_mode ?? 'files_with_matches';
    const headLimit = input.head_limit ?? DEFAULT_HEAD_LIMIT;
    const limit = headLimit === 0 ? UNLIMITED_ENTRIES : headLimit;
    const offset = input.offset ?? 0;
    const around = input.context ?? input['-C'] ?? 0;
    const job: GrepJob = {
      pattern: input.pattern,
      ignoreCase: input['-i'] === true,
      mode,
      lineNumbers: input['-n'] !== false,
      // Context is for matching lines only: other modes ignore it, as ripgrep does.
      before: mode === 'content' ? (input['-B'] ?? around) : 0,
      after: mode === 'content' ? (input['-A'] ?? around) : 0,
      multiline: input.multiline === true,
      onlyMatching: mode === 'content' && input['-o'] === true,
      // The skipped entries, then one past the limit, to know whether the list was cut.
      maxEntries: offset + limit + 1,
      maxFileBytes: MAX_FILE_BYTES,
      maxLineChars: MAX_LINE_CHARS,
    };
    const entries = await inWorkdir(context.workdir, (workdir) =>
      search(workdir, job, { path: input.path, glob: input.glob, type, signal: context.signal }),
    );
    if (entries.length === 0) return { text: mode === 'content' ? 'No matches found' : 'No files found' };
    if (entries.length <= offset)
      return { text: `No more results at offset ${offset}: the search found ${entries.length} entries.` };
    const truncated = entries.length > offset + limit;
    const shownEntries = entries.slice(offset, offset + limit);
    const header = mode === 'files_with_matches' ? `Found ${shownEntries.length}${truncated ? '+' : ''} file(s)\n` : '';
    if (truncated) shownEntries.push(moreNote(headLimit, offset, limit));
    return { text: header + shownEntries.join('\n') };
  },
});

/** What the model reads when there are more entries than it asked for: how to see them. */
function moreNote(headLimit: number, offset: number, limit: number): string {
  const next = `offset: ${offset + limit}`;
  return headLimit === 0
    ? `(Results are capped at ${limit} entries even with head_limit: 0. Narrow the pattern, path or glob, or call again with ${next}.)`
    : `(Results are capped at ${limit} entries (head_limit). Narrow the pattern, path or glob, or call again with ${next}.)`;
}

/** Runs the search over the file or directory `path` names, opening each file beneath the workdir. */
async function search(
  workdir: Workdir,
  job: GrepJob,
  where: { path?: string; glob?: string; type?: readonly string[]; signal: AbortSignal },
): Promise<string[]> {
  const target = workdir.stat(where.path ?? '.');
  if (!target) throw new ToolError(`Path does not exist: ${where.path ?? '.'}`);
  if (!target.isDirectory() && !target.isFile())
    throw new ToolError(`${where.path} is not a regular file or a directory.`);
  const grep = new GrepSearch(job, where.signal);
  try {
    if (target.isFile()) {
      const opened = workdir.openFile(target.relative);
      if (opened)
        await grep.add({ fd: opened.fd, shown: displayPath(workdir.path, workdir.absolute(opened.relative)) });
    } else {
      const pattern = searchPattern(where.glob, { workdir: workdir.path, root: workdir.absolute(target.relative) });
      await visitFiles(
        workdir,
        pattern,
        { root: target.relative, signal: where.signal },
        async (directory, name, path) => {
          if (where.type && !fileOfType(where.type, path)) return true;
          if ((directory.lstat(name)?.size ?? Infinity) > MAX_FILE_BYTES) return true;
          const opened = directory.openFile(name);
          return opened ? grep.add({ fd: opened.fd, shown: displayPath(workdir.path, path) }) : true;
        },
      );
    }
    return await grep.finish();
  } finally {
    await grep.close();
  }
}

/** The files to search under a directory: all, or those `glob` names ("*.ts" anywhere, "src/**\/*.js" from the root). */
function searchPattern(glob: string | undefined, where: { workdir: string; root: string }): string {
  if (!glob) return '**/*';
  const confined = confinedPattern(glob, { ...where, field: 'glob' });
  return confined.includes('/') ? confined : `**/${confined}`;
}
