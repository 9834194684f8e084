/**
 * Issue 27, writing sub-agents (`patched('worktree-sub-agents')`): two Agent calls with
 * `isolation: "worktree"` in one response change the same line of `shared.txt` in their
 * worktrees; the first is merged, the second merges its other file and reports the line as a
 * conflict (the parent keeps its line). Both children's histories are recorded too.
 * `worktree-shared-fork` (`patched('worktree-shared-fork')`): the same, the two calls forking
 * from one snapshot of the parent's files.
 */
import type { FakeReply, RecordedRequest } from '../../test/support/fake-anthropic';
import { taskOf, turnOf } from '../../test/support/fake-anthropic';
import type { Scenario } from './scenario';

function fanOutHandler(request: RecordedRequest): FakeReply {
  const task = taskOf(request);
  const side = task.includes('side A') ? 'A' : task.includes('side B') ? 'B' : undefined;
  if (!side) {
    if (turnOf(request) > 0) return { kind: 'message', content: [{ type: 'text', text: 'Both sides tried.' }] };
    return {
      kind: 'message',
      content: ['A', 'B'].map((name) => ({
        type: 'tool_use' as const,
        id: `toolu_side${name}`,
        name: 'Agent',
        input: { description: `side ${name}`, prompt: `Do side ${name}`, isolation: 'worktree' },
      })),
      stopReason: 'tool_use',
    };
  }
  if (turnOf(request) > 0) return { kind: 'message', content: [{ type: 'text', text: `side ${side} done` }] };
  const also = side === 'B' ? ' && echo "b and more" > b-only.txt' : '';
  return {
    kind: 'message',
    content: [
      {
        type: 'tool_use',
        id: `toolu_edit${side}`,
        name: 'Bash',
        input: { command: `sed -i 's/^two$/two by ${side}/' shared.txt${also}` },
      },
    ],
    stopReason: 'tool_use',
  };
}

export const worktreeScenarios: Scenario[] = [
  {
    name: 'worktree-fan-out-conflict',
    files: { 'shared.txt': 'one\ntwo\nthree\n', 'b-only.txt': 'b\n' },
    handler: fanOutHandler,
    input: { toolSummaries: false },
    childToolUseIds: ['toolu_sideA', 'toolu_sideB'],
  },
  {
    name: 'worktree-shared-fork',
    files: { 'shared.txt': 'one\ntwo\nthree\n', 'b-only.txt': 'b\n' },
    handler: fanOutHandler,
    input: { toolSummaries: false },
    childToolUseIds: ['toolu_sideA', 'toolu_sideB'],
  },
];
