import type { PlannedToolUse } from '../../../../src/shared/activity-io';
import type { ToolResult } from '../../../../src/shared/conversation';
import {
  cancelsSiblings,
  orderToolResults,
  partitionToolUses,
  siblingCancelledResult,
} from '../../../../src/workflows/core/tool-batches';

const call = (id: string, name: string, safe: boolean): PlannedToolUse => ({
  id,
  name,
  input: {},
  plan: { ok: true, concurrencySafe: safe, summary: `${name} ${id}` },
});
const invalid = (id: string): PlannedToolUse => ({
  id,
  name: 'Read',
  input: {},
  plan: { ok: false, errorText: 'bad' },
});
const ids = (batches: ReturnType<typeof partitionToolUses>) =>
  batches.map((batch) => [batch.parallel, batch.calls.map((c) => c.id)]);

describe('partitionToolUses', () => {
  test('consecutive safe calls run together; unsafe calls run alone, in order', () => {
    const batches = partitionToolUses(
      [
        call('r1', 'Read', true),
        call('g1', 'Grep', true),
        call('e1', 'Edit', false),
        call('r2', 'Read', true),
        call('b1', 'Bash', false),
        call('b2', 'Bash', false),
      ],
      10,
    );
    expect(ids(batches)).toEqual([
      [true, ['r1', 'g1']],
      [false, ['e1']],
      [true, ['r2']],
      [false, ['b1']],
      [false, ['b2']],
    ]);
  });

  test('at most maxParallel calls at once', () => {
    const reads = Array.from({ length: 23 }, (_, index) => call(`r${index}`, 'Read', true));
    expect(partitionToolUses(reads, 10).map((batch) => batch.calls.length)).toEqual([10, 10, 3]);
  });

  test('a call rejected at planning is a batch of its own', () => {
    expect(ids(partitionToolUses([call('r1', 'Read', true), invalid('x'), call('r2', 'Read', true)], 10))).toEqual([
      [true, ['r1']],
      [false, ['x']],
      [true, ['r2']],
    ]);
  });
});

describe('results', () => {
  const result = (id: string, isError = false): ToolResult => ({ toolUseId: id, isError, content: { text: id } });

  test('exactly one result per tool_use, in tool_use order, whatever order they finished in', () => {
    const uses = [call('a', 'Read', true), call('b', 'Read', true), call('c', 'Edit', false)];
    const ordered = orderToolResults(
      uses,
      new Map([
        ['c', result('c')],
        ['a', result('a')],
      ]),
    );
    expect(ordered.map((entry) => entry.toolUseId)).toEqual(['a', 'b', 'c']);
    expect(ordered[1]).toMatchObject({ isError: true, content: { text: expect.stringContaining('no result') } });
  });

  test('only a failing Bash call cancels its siblings', () => {
    expect(cancelsSiblings(call('b', 'Bash', false), result('b', true))).toBe(true);
    expect(cancelsSiblings(call('b', 'Bash', false), result('b', false))).toBe(false);
    expect(cancelsSiblings(call('e', 'Edit', false), result('e', true))).toBe(false);
    expect(siblingCancelledResult(call('w', 'Write', false), call('b', 'Bash', false))).toEqual({
      toolUseId: 'w',
      isError: true,
      content: {
        text: '<tool_use_error>Cancelled: parallel tool call Bash b errored, so this call was not run.</tool_use_error>',
      },
      toolName: 'Write',
    });
  });
});
