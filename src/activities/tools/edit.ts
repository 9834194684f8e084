import { z } from 'zod';
import { assertReadAndUnchanged, fileToChange, writeFileOnce } from './file-effects';
import { displayPath } from './paths';
import { settingsApproval } from './settings-guard';
import { defineTool, ToolError } from './tool';

const SNIPPET_CONTEXT_LINES = 3;

export const editTool = defineTool({
  name: 'Edit',
  description: [
    'Replaces exact text in a file.',
    '- You must Read the file first in this session, and it must not have changed since.',
    '- old_string must match the file exactly (indentation included) and be unique, unless replace_all is true.',
    '- An empty old_string creates a new file with new_string as its content.',
  ].join('\n'),
  schema: z
    .object({
      file_path: z.string().min(1).describe('The path of the file to modify'),
      old_string: z.string().describe('The exact text to replace'),
      new_string: z.string().describe('The text to replace it with (must differ from old_string)'),
      replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: true,
  editsFiles: true,
  subject: (input) => input.file_path,
  approvalFacts: settingsApproval,
  summarize: (input) => `Edit ${input.file_path}`,
  targetPath: (input) => input.file_path,
  async execute(input, context) {
    const { path, current, replayed } = await fileToChange(context, input.file_path);
    if (replayed) return replayed;
    const shown = displayPath(context.workdir, path);
    if (input.old_string === input.new_string) {
      throw new ToolError('No changes to make: old_string and new_string are exactly the same.');
    }
    if (current === null) {
      if (input.old_string !== '') throw new ToolError(`File does not exist: ${shown}`);
      return writeFileOnce(context, path, null, input.new_string, `File created successfully at: ${shown}`);
    }
    assertReadAndUnchanged(context, path, current, 'editing');
    if (input.old_string === '') {
      throw new ToolError('old_string is empty but the file already exists. Give the exact text to replace.');
    }
    const occurrences = current.split(input.old_string).length - 1;
    if (occurrences === 0) {
      throw new ToolError(`String to replace not found in file ${shown}.\nString: ${input.old_string}`);
    }
    if (occurrences > 1 && !input.replace_all) {
      throw new ToolError(
        `Found ${occurrences} matches of the string to replace, but replace_all is false. ` +
          'To replace all occurrences, set replace_all to true. To replace only one occurrence, ' +
          'give more surrounding context so that old_string identifies one instance.',
      );
    }
    const first = current.indexOf(input.old_string);
    // split/join and slicing rather than String.replace: `$&` and friends in new_string stay literal.
    const updated = input.replace_all
      ? current.split(input.old_string).join(input.new_string)
      : current.slice(0, first) + input.new_string + current.slice(first + input.old_string.length);
    const replaced = input.replace_all ? `${occurrences} occurrences` : '1 occurrence';
    const message =
      `The file ${shown} has been updated (${replaced} replaced). ` +
      `A snippet of the result (\`cat -n\`):\n${snippet(updated, first, input.new_string)}`;
    return writeFileOnce(context, path, current, updated, message);
  },
});

function snippet(content: string, offset: number, inserted: string): string {
  const lines = content.split('\n');
  const startLine = content.slice(0, offset).split('\n').length - 1;
  const endLine = startLine + inserted.split('\n').length - 1;
  const from = Math.max(0, startLine - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, endLine + SNIPPET_CONTEXT_LINES + 1);
  return lines
    .slice(from, to)
    .map((line, index) => `${String(from + index + 1).padStart(6)}\t${line}`)
    .join('\n');
}
