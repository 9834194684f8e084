/** TaskStop: declared (its schema checked against Claude Code's) but not offered until background commands exist. */
import { TOOLS } from '../../../../src/activities/tools/registry';
import { taskStopTool } from '../../../../src/activities/tools/task-stop';
import { ToolError } from '../../../../src/activities/tools/tool';
import { toolWorkdir } from '../../../support/tool-workdir';

test('not offered to the model: a call of it is an unknown tool', () => {
  expect(TOOLS.apiDefinitions().map((tool) => tool.name)).not.toContain('TaskStop');
  expect(TOOLS.find('TaskStop')).toBeUndefined();
});

test("its input is Claude Code's (task_id, or the deprecated shell_id); run, it says nothing runs in the background", async () => {
  expect(taskStopTool.schema.safeParse({ task_id: 'b1' }).success).toBe(true);
  expect(taskStopTool.schema.safeParse({ shell_id: 'b1' }).success).toBe(true);
  expect(taskStopTool.schema.safeParse({ pid: 1 }).success).toBe(false);
  expect(taskStopTool.summarize({ task_id: 'b1' })).toBe('TaskStop b1');
  const run = taskStopTool.execute({ task_id: 'b1' }, toolWorkdir('task-stop').context());
  await expect(run).rejects.toBeInstanceOf(ToolError);
  await expect(run).rejects.toThrow('No background task b1 is running: background commands are not available yet.');
});
