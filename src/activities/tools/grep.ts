import { readFile, stat } from 'node:fs/promises';
import fastGlob from 'fast-glob';
import { z } from 'zod';
import { FILE_SEARCH } from './glob';
import { displayPath, resolveInWorkdir } from './paths';
import { defineTool, ToolError } from './tool';

/** Entries returned at most (Claude Code's value); head_limit may ask for fewer. */
const SEARCH_RESULT_LIMIT = 1000;
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 500;

export const grepTool = defineTool({
  name: 'Grep',
  description: [
    'Searches file contents with a regular expression (JavaScript syntax) in the working directory.',
    '- output_mode: "files_with_matches" (default, paths only), "content" (matching lines), or "count".',
    '- glob filters files (e.g. "*.ts", "src/**/*.js"); path is a file or directory (default: the working directory).',
    '- "-i": case-insensitive; "-n": line numbers in content mode (default true); head_limit caps the entries returned.',
    '- node_modules, .git and binary files are skipped.',
  ].join('\n'),
  schema: z
    .object({
      pattern: z.string().min(1).describe('The regular expression to search for'),
      path: z.string().optional().describe('File or directory to search in'),
      glob: z.string().optional().describe('Glob pattern to filter files'),
      output_mode: z.enum(['content', 'files_with_matches', 'count']).optional(),
      '-i': z.boolean().optional().describe('Case-insensitive search'),
      '-n': z.boolean().optional().describe('Show line numbers (content mode)'),
      head_limit: z.number().int().positive().optional().describe('Return at most this many entries'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  subject: (input) => input.pattern,
  summarize: (input) => `Grep ${input.pattern}${input.path ? ` in ${input.path}` : ''}${input.glob ? ` (${input.glob})` : ''}`,
  async execute(input, context) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input['-i'] ? 'i' : '');
    } catch (error) {
      throw new ToolError(`Invalid regular expression: ${(error as Error).message}`);
    }
    const target = resolveInWorkdir(context.workdir, input.path ?? '.');
    const info = await stat(target).catch(() => undefined);
    if (!info) throw new ToolError(`Path does not exist: ${input.path ?? '.'}`);
    const files = info.isDirectory()
      ? (
          await fastGlob(input.glob ? (input.glob.includes('/') ? input.glob : `**/${input.glob}`) : '**/*', {
            ...FILE_SEARCH,
            cwd: target,
          })
        ).sort()
      : [target];
    const mode = input.output_mode ?? 'files_with_matches';
    const limit = Math.min(input.head_limit ?? SEARCH_RESULT_LIMIT, SEARCH_RESULT_LIMIT);
    const entries: string[] = [];
    // Collect one entry past the limit, to know whether the list was cut.
    for (const file of files) {
      if (context.signal.aborted || entries.length > limit) break;
      const fileInfo = await stat(file).catch(() => undefined);
      if (!fileInfo || fileInfo.size > MAX_FILE_BYTES) continue;
      const buffer = await readFile(file).catch(() => undefined);
      if (!buffer || buffer.subarray(0, 8192).includes(0)) continue;
      const lines = buffer.toString('utf8').split('\n');
      const shown = displayPath(context.workdir, file);
      let count = 0;
      for (let index = 0; index < lines.length && entries.length <= limit; index++) {
        const line = lines[index]!;
        if (!regex.test(line)) continue;
        count++;
        if (mode === 'files_with_matches') break;
        if (mode === 'content') {
          const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
          entries.push(input['-n'] === false ? `${shown}:${cut}` : `${shown}:${index + 1}:${cut}`);
        }
      }
      if (count > 0 && mode === 'files_with_matches') entries.push(shown);
      if (count > 0 && mode === 'count') entries.push(`${shown}:${count}`);
    }
    if (entries.length === 0) return { text: mode === 'content' ? 'No matches found' : 'No files found' };
    const truncated = entries.length > limit;
    const shownEntries = entries.slice(0, limit);
    const header = mode === 'files_with_matches' ? `Found ${shownEntries.length}${truncated ? '+' : ''} file(s)\n` : '';
    if (truncated) shownEntries.push(`(Results are capped at ${limit} entries. Narrow the pattern, path or glob.)`);
    return { text: header + shownEntries.join('\n') };
  },
});
