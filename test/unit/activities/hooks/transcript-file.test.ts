import { transcriptLines } from '../../../../src/activities/hooks/transcript-file';

test('a line per message: {type, message: {role, content}}', () => {
  const lines = transcriptLines([
    { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
  ]);
  expect(lines.split('\n')).toEqual([
    '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"fix it"}]}}',
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}',
    '',
  ]);
});
