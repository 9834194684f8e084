/** TaskOutput: Claude Code's shape ({task_id, block, timeout}); the workflow carries it out (`background: 'output'`). */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { taskOutputTool } from '../../../../src/activities/tools/task-output';

test('offered to the model, its plan says the workflow reads a background command', async () => {
  const planned = await TOOLS.plan(
    { id: 'toolu_1', name: 'TaskOutput', input: { task_id: 'b1', block: false } },
    '/tmp',
    ['TaskOutput'],
  );
  expect(planned.plan).toMatchObject({ ok: true, summary: 'TaskOutput b1', rules: { background: 'output' } });
});

test('task_id is required; block and timeout (at most 10 minutes) are optional', () => {
  expect(taskOutputTool.schema.safeParse({ task_id: 'b1' }).success).toBe(true);
  expect(taskOutputTool.schema.safeParse({ task_id: 'b1', block: true, timeout: 600_000 }).success).toBe(true);
  expect(taskOutputTool.schema.safeParse({ task_id: 'b1', timeout: 600_001 }).success).toBe(false);
  expect(taskOutputTool.schema.safeParse({ block: true }).success).toBe(false);
});
