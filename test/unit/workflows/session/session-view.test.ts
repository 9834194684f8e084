/** What people see, built from the loop state; a recording publisher stands in for Temporal's. */
import type { PendingApproval } from '../../../../src/shared/contract';
import { currentDetails } from '../../../../src/workflows/session/current-details';
import { type SearchAttributeValues, SessionView } from '../../../../src/workflows/session/session-view';
import { loopState } from '../../../support/loop-state';

function view(searchAttributes = true) {
  const people = { pendingApprovals: [] as PendingApproval[], queued: [] as string[] };
  const published = { details: [] as string[], attributes: [] as SearchAttributeValues[] };
  const sessionView = new SessionView('claude-sonnet-5-5', people, searchAttributes, {
    details: (markdown) => published.details.push(markdown),
    searchAttributes: (values) => published.attributes.push(values),
  });
  return { view: sessionView, people, published };
}

describe('the state query and the search attributes', () => {
  test('a status change publishes the details every time and the search attributes only when they change', () => {
    const { view: sessionView, published } = view();
    sessionView.setStatus('running_model', loopState({ turnCount: 1 }));
    sessionView.setStatus('running_model', loopState({ turnCount: 1 }));
    sessionView.showTransition(loopState({ turnCount: 1, lastTransition: 'next_turn' }), 'next_turn');
    sessionView.setStatus('running_tools');
    expect(published.details).toHaveLength(3);
    expect(published.attributes).toEqual([
      { turn: 1, status: 'running_model', transition: 'none' },
      { turn: 1, status: 'running_tools', transition: 'next_turn' },
    ]);
  });

  test("a move shows as the last transition until the loop's next one, without being the loop's", () => {
    const { view: sessionView, published } = view();
    sessionView.setStatus('running_tools', loopState({ turnCount: 2, lastTransition: 'next_turn' }));
    sessionView.showMove(loopState({ turnCount: 2, lastTransition: 'next_turn' }), 'host host-a was lost');
    expect(sessionView.snapshot()).toMatchObject({
      lastTransition: 'workspace_moved',
      transitions: ['workspace_moved'],
    });
    sessionView.setStatus('running_model', loopState({ turnCount: 3, lastTransition: 'next_turn' }));
    expect(published.attributes.map((values) => values.transition)).toEqual([
      'next_turn',
      'workspace_moved',
      'next_turn',
    ]);
    expect(sessionView.page({}).entries).toContainEqual({
      type: 'transition',
      turn: 2,
      transition: 'workspace_moved',
      detail: 'host host-a was lost',
    });
  });

  test('the cost rides with the other search attributes once a call had a price, and shows in the details', () => {
    const { view: sessionView, published } = view();
    const usage = { inputTokens: 10, outputTokens: 5, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
    sessionView.setStatus('running_model', loopState({ turnCount: 1, usage }));
    sessionView.setStatus('running_tools', loopState({ turnCount: 1, usage: { ...usage, costUsd: 0.04211 } }));
    expect(published.attributes).toEqual([
      { turn: 1, status: 'running_model', transition: 'none' },
      { turn: 1, status: 'running_tools', transition: 'none', costUsd: 0.04211 },
    ]);
    expect(published.details[0]).not.toContain('- cost:');
    expect(published.details[1]).toContain('- cost: $0.0421 (sub-agents included)');
    expect(sessionView.snapshot().usage.costUsd).toBe(0.04211);
  });

  test('sessions recorded before search attributes publish the details only', () => {
    const { view: sessionView, published } = view(false);
    sessionView.setStatus('running_model', loopState());
    expect(published.details).toHaveLength(1);
    expect(published.attributes).toEqual([]);
  });

  test('the snapshot joins the loop state with what people asked', () => {
    const { view: sessionView, people } = view();
    people.pendingApprovals.push({
      toolUseId: 'toolu_1',
      name: 'Bash',
      summary: 'Bash rm x',
      input: { command: 'rm x' },
    });
    people.queued.push('Use tabs');
    sessionView.setStatus('waiting_approval', loopState({ turnCount: 2 }));
    sessionView.addEdits(loopState(), ['microcompact'], 900);
    sessionView.showToolCalls([{ toolUseId: 'toolu_1', name: 'Bash', summary: 'Bash rm x' }]);
    expect(sessionView.snapshot()).toMatchObject({
      turn: 2,
      status: 'waiting_approval',
      pendingApprovals: [{ toolUseId: 'toolu_1' }],
      queuedMessages: 1,
      contextEdits: ['microcompact'],
      currentToolCalls: [{ summary: 'Bash rm x' }],
      estimatedContextTokens: 1002, // the overhead, plus the prompt's 5 characters / 4
    });
  });

  test('the current details say what runs or waits, in Markdown', () => {
    const { view: sessionView, people, published } = view();
    people.pendingApprovals.push({ toolUseId: 'toolu_9', name: 'Edit', summary: 'Edit a.ts', input: {} });
    sessionView.setStatus('waiting_approval', loopState({ turnCount: 4 }));
    expect(published.details[0]).toMatch(
      /^\*\*Turn 4\*\* · \*\*waiting for approval\*\*: Edit a\.ts \(`toolu_9`\)\n- model: claude-sonnet-5-5/,
    );
    sessionView.showToolSummary(4, 'Read the config.');
    expect(published.details[1]).toContain('- last tools: Read the config.');
    sessionView.finish(loopState({ turnCount: 4 }), 'completed');
    expect(published.details[2]).toMatch(/^\*\*Turn 4\*\* · finished: \*\*completed\*\*/);
  });
});

describe('the transcript', () => {
  test('pages by index; indexes go on across runs of a continued session', () => {
    const { view: first } = view();
    for (let turn = 1; turn <= 3; turn++) first.add({ type: 'user', turn, text: `m${turn}` });
    first.showTransition(loopState({ turnCount: 3 }), 'next_turn');
    expect(first.page({ fromIndex: 1, limit: 2 })).toMatchObject({
      entries: [{ text: 'm2' }, { text: 'm3' }],
      nextIndex: 3,
      total: 4,
    });

    const carried = first.carry();
    expect(carried).toEqual({ transcriptBase: 4, transitions: ['next_turn'], contextEdits: [], runs: 1 });
    const { view: next } = view();
    next.restore(carried, 3);
    next.add({ type: 'user', turn: 4, text: 'm4' });
    expect(next.page({ fromIndex: 0 })).toMatchObject({
      entries: [{ type: 'transition', transition: 'continued_as_new', detail: 'run 2' }, { text: 'm4' }],
      nextIndex: 6,
      total: 6,
    });
    expect(next.snapshot().transitions).toEqual(['next_turn']);
  });
});

test('currentDetails shows tokens, context edits and the last transition', () => {
  const state = {
    ...view().view.snapshot(),
    turn: 7,
    lastTransition: 'reactive_compact_retry' as const,
    contextEdits: ['autocompact' as const],
  };
  expect(currentDetails(state, [])).toContain('- last transition: reactive_compact_retry');
  expect(currentDetails(state, [])).toContain('(edits: autocompact)');
});

test('currentDetails and the state query show a rate limit being waited out (issue 26)', () => {
  const { view: sessionView } = view();
  sessionView.showRateLimit({ until: '2026-12-02T17:00:00.000Z', waitedMs: 4_000, refusals: 2 });
  sessionView.setStatus('waiting_rate_limit');
  const state = sessionView.snapshot();
  expect(state).toMatchObject({ status: 'waiting_rate_limit', rateLimit: { until: '2026-12-02T17:00:00.000Z' } });
  expect(currentDetails(state, [])).toMatch(
    /^\*\*Turn 0\*\* · \*\*waiting out a rate limit\*\* until 2026-12-02T17:00:00.000Z \(2 refused, 4 s waited before\)/,
  );
});

test('currentDetails and the state query show the workspace: its last snapshot, and how many there are', () => {
  const { view: session } = view();
  expect(currentDetails(session.snapshot(), [])).not.toContain('workspace');
  const ref = `sha256:${'ab'.repeat(32)}`;
  session.showSnapshots([
    { turn: 0, ref: `sha256:${'0'.repeat(64)}`, filesChanged: 0 },
    { turn: 3, ref, filesChanged: 2 },
  ]);
  expect(session.snapshot().snapshots).toEqual([
    { turn: 0, ref: `sha256:${'0'.repeat(64)}`, filesChanged: 0 },
    { turn: 3, ref, filesChanged: 2 },
  ]);
  expect(currentDetails(session.snapshot(), [])).toContain(
    '- workspace: last snapshot after turn 3 (`sha256:abababababab…`, 2 in all)',
  );
});

test("trusted settings entries that cannot run are in the state query and the session entry, also on a later run's prepare", () => {
  const skippedSettings = [
    { file: '.claude/settings.json', path: 'hooks.Notification', reason: 'an event durable-agent does not run' },
  ];
  const prepared = {
    workdir: '/repo',
    sandbox: 'bwrap' as const,
    model: 'm',
    overheadTokens: 0,
    systemRef: 'ref',
    prompt: { text: 'p' },
    skippedSettings,
  };
  const { view: session } = view();
  session.showPrepared(prepared, { note: true });
  expect(session.snapshot().skippedSettings).toEqual(skippedSettings);
  expect(session.page({}).entries).toEqual([expect.objectContaining({ type: 'session', skippedSettings })]);

  const { view: continued } = view();
  continued.showPrepared(prepared, { note: false });
  expect(continued.snapshot().skippedSettings).toEqual(skippedSettings);
  expect(continued.page({}).entries).toEqual([]);
  expect(view().view.snapshot()).not.toHaveProperty('skippedSettings');
});

test('the state query and current details list background commands: the running ones, then the last that ended', () => {
  const { view: session, published } = view();
  const task = (id: string, status: 'running' | 'completed') => ({
    id,
    toolUseId: `toolu_${id}`,
    description: `Job ${id}`,
    command: 'make',
    status,
    turn: 1,
  });
  session.showBackgroundTasks([task('b1', 'completed'), task('b2', 'running')]);
  expect(session.snapshot().backgroundTasks?.map((shown) => shown.status)).toEqual(['completed', 'running']);
  expect(published.details.at(-1)).toContain(
    '- background commands (1 running):\n  - `b2` running: Job b2\n  - `b1` completed: Job b1',
  );
  session.showBackgroundTasks([]);
  expect(session.snapshot().backgroundTasks).toBeUndefined();
  expect(published.details.at(-1)).not.toContain('background');
});
