import { hookInputFields, resultFields } from '../../../../src/activities/hooks/hook-input';
import type { ToolHookInput } from '../../../../src/shared/hook-runs';

const base: ToolHookInput = { sessionId: 's1', workdir: '/w', event: 'PostToolUse', hooks: [] };

test('the common fields: permission_mode always given, agent_id and agent_type in a sub-agent, the event’s own', () => {
  expect(
    hookInputFields(
      {
        ...base,
        event: 'SessionStart',
        permissionMode: 'default',
        agent: { id: 'toolu_1', type: 'Explore' },
        eventFields: { source: 'startup' },
      },
      '/tmp/t/transcript.jsonl',
    ),
  ).toEqual({
    session_id: 's1',
    transcript_path: '/tmp/t/transcript.jsonl',
    cwd: '/w',
    permission_mode: 'default',
    agent_id: 'toolu_1',
    agent_type: 'Explore',
    hook_event_name: 'SessionStart',
    source: 'startup',
  });
});

const after = (name: string, input: unknown, text: string, isError = false) =>
  resultFields({ ...base, tool: { name, toolUseId: 't', input }, result: { content: { text }, isError } }, text);

test('tool_response keeps its fields and adds Claude Code’s per tool', () => {
  expect(after('Bash', { command: 'ls' }, 'a\nb\nExit code: 0')).toEqual({
    tool_response: {
      success: true,
      content: 'a\nb\nExit code: 0',
      stdout: 'a\nb\nExit code: 0',
      stderr: '',
      interrupted: false,
      isImage: false,
    },
  });
  const read = after('Read', { file_path: '/w/a.ts', offset: 10 }, '    10\tconst a = 1;\n    11\tconst b = 2;');
  expect(read.tool_response).toMatchObject({
    type: 'text',
    file: { filePath: '/w/a.ts', content: 'const a = 1;\nconst b = 2;', numLines: 2, startLine: 10, totalLines: 11 },
  });
  expect(
    after('Write', { file_path: 'a', content: 'x' }, 'File created successfully at: a').tool_response,
  ).toMatchObject({
    type: 'create',
    filePath: 'a',
    success: true,
  });
  expect(after('Edit', { file_path: 'a', old_string: 'x', new_string: 'y' }, 'ok').tool_response).toMatchObject({
    filePath: 'a',
    oldString: 'x',
    newString: 'y',
    replaceAll: false,
  });
  expect(after('Glob', { pattern: '*.ts' }, 'a.ts\nb.ts').tool_response).toMatchObject({
    filenames: ['a.ts', 'b.ts'],
    numFiles: 2,
  });
});

test('PostToolUseFailure reads the failed result as `error`, not tool_response', () => {
  expect(
    resultFields(
      {
        ...base,
        event: 'PostToolUseFailure',
        tool: { name: 'Bash', toolUseId: 't', input: {} },
        result: { content: { text: 'Exit code: 1' }, isError: true },
      },
      'Exit code: 1',
    ),
  ).toEqual({ error: 'Exit code: 1' });
});
