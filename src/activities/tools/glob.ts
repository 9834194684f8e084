import { z } from 'zod';
import { confinedPattern, findFiles } from './file-search';
import { displayPath, inWorkdir } from './paths';
import { defineTool, ToolError } from './tool';

const GLOB_RESULT_LIMIT = 100;

export const globTool = defineTool({
  name: 'Glob',
  description: [
    'Finds files by glob pattern (e.g. "**/*.ts", "src/**/config.*") in the working directory.',
    `- Returns up to ${GLOB_RESULT_LIMIT} paths, newest first; node_modules and .git are skipped.`,
    '- path: the directory to search in (default: the working directory).',
  ].join('\n'),
  schema: z
    .object({
      pattern: z.string().min(1).describe('The glob pattern to match files against'),
      path: z.string().optional().describe('The directory to search in'),
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
  summarize: (input) => `Glob ${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
  async execute(input, context) {
    const entries = await inWorkdir(context.workdir, async (workdir) => {
      const info = workdir.stat(input.path ?? '.');
      if (!info?.isDirectory()) throw new ToolError(`Directory does not exist: ${input.path ?? '.'}`);
      const pattern = confinedPattern(input.pattern, {
        workdir: workdir.path,
        root: workdir.absolute(info.relative),
        field: 'pattern',
      });
      return findFiles(workdir, pattern, { root: info.relative, signal: context.signal });
    });
    if (entries.length === 0) return { text: 'No files found' };
    entries.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path));
    const shown = entries.slice(0, GLOB_RESULT_LIMIT).map((entry) => displayPath(context.workdir, entry.path));
    if (entries.length > GLOB_RESULT_LIMIT) {
      shown.push(`(Results are truncated: ${entries.length} files matched. Use a more specific path or pattern.)`);
    }
    return { text: shown.join('\n') };
  },
});
