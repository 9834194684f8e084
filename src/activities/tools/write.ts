import { z } from 'zod';
import { assertReadAndUnchanged, fileToChange, writeFileOnce } from './file-effects';
import { displayPath } from './paths';
import { settingsApproval } from './settings-guard';
import { defineTool } from './tool';

export const writeTool = defineTool({
  name: 'Write',
  description: [
    'Writes a file in the working directory, creating parent directories as needed.',
    '- Overwrites an existing file: you must Read an existing file first, and it must not have changed since.',
    '- Prefer Edit for changes to existing files; use Write for new files or complete rewrites.',
  ].join('\n'),
  schema: z
    .object({
      file_path: z.string().min(1).describe('The path of the file to write'),
      content: z.string().describe('The complete content to write'),
    })
    .strict(),
  needsApproval: true,
  isConcurrencySafe: () => false,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: true,
  editsFiles: true,
  ruleNames: ['Edit'],
  subject: (input) => input.file_path,
  approvalFacts: settingsApproval,
  summarize: (input) => `Write ${input.file_path}`,
  targetPath: (input) => input.file_path,
  async execute(input, context) {
    const { path, current, replayed } = await fileToChange(context, input.file_path);
    if (replayed) return replayed;
    if (current !== null) assertReadAndUnchanged(context, path, current, 'writing to');
    const shown = displayPath(context.workdir, path);
    const message =
      current === null
        ? `File created successfully at: ${shown}`
        : `The file ${shown} has been overwritten (${input.content.split('\n').length} lines).`;
    return writeFileOnce(context, path, current, input.content, message);
  },
});
