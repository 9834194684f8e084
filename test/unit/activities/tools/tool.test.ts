/**
 * A tool's failures: a ToolError is the model's to act on (an `is_error` result, never a retry);
 * any other error is the worker's and fails the activity, so Temporal retries it.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { TOOLS, ToolRegistry } from '../../../../src/activities/tools/registry';
import { createToolActivities } from '../../../../src/activities/tools/run-tool';
import { defineTool, ToolError } from '../../../../src/activities/tools/tool';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import type { RunToolOutput } from '../../../../src/shared/activity-io';
import { LocalContentStore } from '../../../../src/store/content-store';
import { scratchDir } from '../../../support/paths';
import { toolWorkdir } from '../../../support/tool-workdir';

/** A tool that exists only here: fails as its input says. */
const failTool = defineTool({
  name: 'Fail',
  description: 'Fails on purpose.',
  schema: z.object({ how: z.enum(['tool', 'worker']) }).strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  subject: (input) => input.how,
  summarize: (input) => `Fail ${input.how}`,
  async execute(input) {
    if (input.how === 'tool') throw new ToolError('the file is locked; try again later');
    throw new Error('the worker lost its disk');
  },
});

const run = (how: string): Promise<RunToolOutput> => {
  const repo = toolWorkdir('tool');
  const { runTool } = createToolActivities({
    store: new LocalContentStore(scratchDir('store')),
    journal: repo.journal,
    sandbox: unconfined(),
    tools: new ToolRegistry([...TOOLS.tools, failTool]),
  });
  return new MockActivityEnvironment().run(runTool, {
    sessionId: 'session-1',
    toolUseId: 'toolu_fail',
    name: 'Fail',
    input: { how },
    workdir: repo.path,
    fileStates: [],
  });
};

test('a ToolError is an Error named ToolError, so logs and stacks say what it is', () => {
  const error = new ToolError('no such file');
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('ToolError');
  expect(String(error)).toBe('ToolError: no such file');
});

test('a ToolError becomes an is_error result with its message, for the model', async () => {
  expect((await run('tool')).result).toEqual({
    toolUseId: 'toolu_fail',
    isError: true,
    content: { text: '<tool_use_error>the file is locked; try again later</tool_use_error>' },
    toolName: 'Fail',
  });
});

test('any other error fails the activity, to be retried', async () => {
  await expect(run('worker')).rejects.toThrow('the worker lost its disk');
});

test('defineTool gives back the definition itself: the registry knows a tool by its object', () => {
  expect(defineTool(failTool)).toBe(failTool);
});
