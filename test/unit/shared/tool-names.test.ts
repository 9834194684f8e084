/** The tools' names: Agent's old name Task is still accepted wherever a tool is named. */
import { canonicalToolName, listsTool, namesOfTool, TOOL_NAMES } from '../../../src/shared/tool-names';

test('Task is the old name of Agent: both accepted, Agent the one offered', () => {
  expect(TOOL_NAMES).toEqual(expect.arrayContaining(['Agent', 'Task']));
  expect(canonicalToolName('Task')).toBe('Agent');
  expect(canonicalToolName('Agent')).toBe('Agent');
  expect(canonicalToolName('Read')).toBe('Read');
  expect(namesOfTool('Task')).toEqual(['Agent', 'Task']);
  expect(namesOfTool('Agent')).toEqual(['Agent', 'Task']);
  expect(namesOfTool('Bash')).toEqual(['Bash']);
});

test('a list of tools names a tool by any of its names', () => {
  expect(listsTool(['Read', 'Task'], 'Agent')).toBe(true);
  expect(listsTool(['Agent'], 'Task')).toBe(true);
  expect(listsTool(['Read'], 'Agent')).toBe(false);
  expect(listsTool(['Read'], 'Read')).toBe(true);
});
