import { LivePrinter, retryLine } from '../../../src/cli/live-printer';
import { ZERO_USAGE } from '../../../src/shared/conversation';

function printer(tty = false) {
  let output = '';
  return {
    printer: new LivePrinter({ write: (text) => void (output += text), tty, color: false }),
    output: () => output,
  };
}

const delta = (turn: number, attempt: number, index: number, text: string) => ({
  type: 'text_delta' as const,
  workflowId: 'a',
  turn,
  at: '',
  attempt,
  index,
  kind: 'text' as const,
  text,
});

describe('a session as `run` and `watch` show it to people', () => {
  test('a retry is one line: why, which attempt, and when', () => {
    const retry = {
      type: 'retry' as const,
      workflowId: 'a',
      turn: 1,
      at: '',
      attempt: 1,
      nextAttempt: 2,
      reason: 'ModelOverloaded',
      message: 'Overloaded',
      replaced: false,
    };
    expect(retryLine({ ...retry, delayMs: 4000 })).toBe('↻ model overloaded: retry 2 in 4 s');
    expect(retryLine({ ...retry, delayMs: 500, reason: 'ModelRateLimited', replaced: true })).toBe(
      '↻ rate limited: retry 2 in 500 ms (its partial reply is replaced)',
    );
  });

  test("text prints as it streams, indented; the turn's transcript entry then adds only its stop reason and tokens", () => {
    const { printer: shown, output } = printer();
    shown.live(delta(1, 1, 0, 'Hello '));
    shown.live(delta(1, 1, 1, 'world.\nSecond'));
    shown.live(delta(1, 1, 2, ' line.'));
    shown.entry({
      type: 'assistant',
      turn: 1,
      text: 'Hello world.\nSecond line.',
      stopReason: 'end_turn',
      usage: { ...ZERO_USAGE, inputTokens: 5, outputTokens: 7 },
    });
    expect(output()).toBe('── turn 1\n  Hello world.\n  Second line.\n  · end_turn · 5 in / 7 out\n');
  });

  test('a retried attempt starts again under its own header; a turn that did not stream prints whole', () => {
    const { printer: shown, output } = printer();
    shown.live(delta(1, 1, 0, 'Half'));
    shown.live({
      type: 'retry',
      workflowId: 'a',
      turn: 1,
      at: '',
      attempt: 1,
      nextAttempt: 2,
      delayMs: 2000,
      reason: 'ModelOverloaded',
      message: '',
      replaced: true,
    });
    shown.live(delta(1, 2, 0, 'Whole.'));
    shown.entry({ type: 'assistant', turn: 2, text: 'Late.', stopReason: 'end_turn', usage: ZERO_USAGE });
    expect(output()).toBe(
      '── turn 1\n  Half\n  ↻ model overloaded: retry 2 in 2 s (its partial reply is replaced)\n── turn 1 (attempt 2)\n  Whole.\n── turn 2 · end_turn · 0 in / 0 out\n  Late.\n',
    );
  });

  test('off a terminal, tool progress draws no spinner', () => {
    const { printer: shown, output } = printer(false);
    shown.entry({ type: 'tool_call', turn: 1, toolUseId: 't', name: 'Bash', summary: 'Bash make' });
    shown.live({
      type: 'tool_progress',
      workflowId: 'a',
      turn: 1,
      at: '',
      toolUseId: 't',
      name: 'Bash',
      elapsedMs: 3000,
      lastLine: 'compiling',
    });
    shown.entry({ type: 'tool_result', turn: 1, toolUseId: 't', name: 'Bash', isError: false, preview: 'done' });
    shown.close();
    expect(output()).toBe('  → Bash make\n  ✓ Bash: done\n');
  });

  test('the result does not repeat the reply just shown', () => {
    const { printer: shown, output } = printer();
    shown.live(delta(1, 1, 0, 'All done.'));
    shown.entry({ type: 'assistant', turn: 1, text: 'All done.', stopReason: 'end_turn', usage: ZERO_USAGE });
    shown.result({ reason: 'completed', turnCount: 1, finalText: 'All done.', usage: ZERO_USAGE });
    expect(output().match(/All done\./g)).toHaveLength(1);
    expect(output()).toContain('Result: completed after 1 turn(s)');
  });

  test('deltas that arrive after their turn was shown whole are late copies, and dropped', () => {
    const { printer: shown, output } = printer();
    shown.entry({ type: 'assistant', turn: 1, text: 'Whole reply.', stopReason: 'end_turn', usage: ZERO_USAGE });
    shown.live(delta(1, 1, 0, 'Whole '));
    shown.live(delta(1, 1, 1, 'reply.'));
    expect(output()).toBe('── turn 1 · end_turn · 0 in / 0 out\n  Whole reply.\n');
  });

  test('a reply that ended before all its pieces arrived prints the rest from its entry, once', () => {
    const { printer: shown, output } = printer();
    shown.live(delta(1, 1, 0, 'Hello '));
    shown.entry({ type: 'assistant', turn: 1, text: 'Hello world.', stopReason: 'end_turn', usage: ZERO_USAGE });
    shown.live(delta(1, 1, 1, 'world.'));
    expect(output()).toBe('── turn 1\n  Hello world.\n  · end_turn · 0 in / 0 out\n');
  });
});
