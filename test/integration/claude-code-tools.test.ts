/**
 * Claude Code 2.1's tool calls as a real model makes them: `Agent` (and its old name `Task`, as
 * older models and histories call it) start child workflows; Grep's `head_limit: 0` returns every
 * match.
 */
import type { AgentResult } from '../../src/shared/contract';
import {
  type FakeReply,
  lastToolResults,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
  taskOf,
} from '../support/fake-anthropic';
import { fileHarness, makeRepo } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

test('Agent and Task calls both start child workflows; the model is offered Agent only', async () => {
  const workdir = makeRepo({ 'notes.txt': 'hello\n' });
  harness.fake.handler = async (request): Promise<FakeReply> => {
    const task = taskOf(request);
    if (task.includes('sub-agent one')) return reply([text('one done')]);
    if (task.includes('sub-agent two')) return reply([text('two done')]);
    if (turnOf(request) === 0)
      return reply([
        toolUse(
          'Agent',
          { description: 'new name', prompt: 'sub-agent one', subagent_type: 'explore', model: 'haiku', name: 'scout' },
          'toolu_agent',
        ),
        toolUse('Task', { description: 'old name', prompt: 'sub-agent two' }, 'toolu_task'),
      ]);
    return reply([text('Both answered.')]);
  };
  const handle = await harness.start({ prompt: 'Delegate twice', workdir, toolSummaries: false });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'Both answered.' });

  const parentCalls = harness.fake.requests.filter((request) => taskOf(request).includes('Delegate twice'));
  expect(parentCalls[0]!.body.tools!.map((tool) => tool.name)).toContain('Agent');
  expect(parentCalls[0]!.body.tools!.map((tool) => tool.name)).not.toContain('Task');
  const answers = lastToolResults(parentCalls.at(-1)!);
  expect(answers.map((block) => [block.tool_use_id, toolResultText(block), block.is_error ?? false])).toEqual([
    ['toolu_agent', 'one done', false],
    ['toolu_task', 'two done', false],
  ]);

  for (const [id, summary] of [
    ['toolu_agent', 'Agent: new name'],
    ['toolu_task', 'Task: old name'],
  ] as const) {
    const child = await harness.client.workflow.getHandle(`${handle.workflowId}-task-${id}`).describe();
    expect(child.parentExecution?.workflowId).toBe(handle.workflowId);
    expect(await child.staticSummary()).toBe(summary);
  }
  // The call's model alias wins over the type's (explore inherits the parent's).
  const one = harness.fake.requests.find((request) => taskOf(request).includes('sub-agent one'))!;
  expect(one.body.model).toBe('claude-haiku-5-5');
});

test('Grep head_limit 0 returns every match, past the default of 250', async () => {
  const lines = Array.from({ length: 400 }, (_, index) => `match ${index + 1}`).join('\n');
  const workdir = makeRepo({ 'big.txt': `${lines}\n` });
  harness.fake.handler = async (request): Promise<FakeReply> => {
    if (turnOf(request) === 0)
      return reply([
        toolUse('Grep', { pattern: 'match', output_mode: 'content', head_limit: 0 }, 'toolu_all'),
        toolUse('Grep', { pattern: 'match', output_mode: 'content' }, 'toolu_default'),
      ]);
    return reply([text('Counted.')]);
  };
  const handle = await harness.start({ prompt: 'Find every match', workdir, toolSummaries: false });
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  const [all, byDefault] = lastToolResults(harness.fake.requests.at(-1)!);
  const allLines = toolResultText(all!).split('\n');
  expect(allLines).toHaveLength(400);
  expect(allLines.at(-1)).toBe('big.txt:400:match 400');
  expect(all!.is_error ?? false).toBe(false);
  const defaultLines = toolResultText(byDefault!).split('\n');
  expect(defaultLines).toHaveLength(251);
  expect(defaultLines.at(-1)).toContain('Results are capped at 250 entries (head_limit)');
});
