/** Steering's state, driven directly (its handlers call these methods; listen() wires them to Temporal). */
import { Steering } from '../../../../src/workflows/session/steering';

function steering() {
  const changes = { count: 0 };
  return { steering: new Steering(() => changes.count++), changes };
}

/** A cancellation scope stand-in: runs the work, records cancel(). */
function fakeScope() {
  const scope = { cancelled: 0, run: <T>(work: () => Promise<T>) => work(), cancel: () => void scope.cancelled++ };
  return scope;
}

describe('messages and end', () => {
  test('non-empty messages queue for the next turn; each change refreshes the view', () => {
    const { steering: people, changes } = steering();
    people.receiveMessage('Use tabs');
    people.receiveMessage('   ');
    people.receiveMessage(42);
    expect(people.queued).toEqual(['Use tabs']);
    expect(changes.count).toBe(3);
    expect(people.takeQueued()).toEqual(['Use tabs']);
    expect(people.queued).toEqual([]);
    people.end();
    expect(people.ended).toBe(true);
  });

  test('queued messages travel to the next run', () => {
    const { steering: first } = steering();
    first.receiveMessage('one');
    first.receiveMessage('two');
    const carried = first.carry();
    // The mode only once plan mode changed it: until then the session's input and settings say it.
    expect(carried).toEqual({ queued: ['one', 'two'] });
    expect(first.queued).toEqual([]);
    const { steering: next } = steering();
    next.restore(carried);
    expect(next.queued).toEqual(['one', 'two']);
  });

  test('messages their UserPromptSubmit hooks saw stay seen: across runs, until they are taken', () => {
    const { steering: first } = steering();
    first.receiveMessage('one');
    first.receiveMessage('two');
    first.screened = 1;
    const carried = first.carry();
    expect(carried).toEqual({ queued: ['one', 'two'], screened: 1 });
    expect(first.screened).toBe(0);
    const { steering: next } = steering();
    next.restore(carried);
    expect(next.screened).toBe(1);
    next.takeQueued();
    expect(next.screened).toBe(0);
    // A message that reached the new run first is not taken for a seen one.
    const { steering: other } = steering();
    other.receiveMessage('early');
    other.restore(carried);
    expect(other.screened).toBe(0);
  });
});

describe('interrupt', () => {
  test('with nothing in flight there is nothing to stop', () => {
    const { steering: people } = steering();
    expect(people.requestInterrupt()).toBe('nothing');
    expect(people.takeInterrupt()).toBe(false);
  });

  test('cancels the model call or the tools in flight, and says so once', async () => {
    const { steering: people } = steering();
    const scope = fakeScope();
    let stopped: string | undefined;
    await people.interruptible(
      'tools',
      async () => {
        stopped = people.requestInterrupt();
      },
      scope,
    );
    expect(stopped).toBe('tools');
    expect(scope.cancelled).toBe(1);
    expect(people.takeInterrupt()).toBe(true);
    expect(people.takeInterrupt()).toBe(false);
    // Once the work is over, an interrupt has nothing to stop.
    expect(people.requestInterrupt()).toBe('nothing');
  });

  test('a closed session has nothing to interrupt', async () => {
    const { steering: people } = steering();
    people.close();
    const scope = fakeScope();
    await people.interruptible('model', async () => expect(people.requestInterrupt()).toBe('nothing'), scope);
    expect(scope.cancelled).toBe(0);
  });
});

describe('stopping for a rewind', () => {
  test('cancels what is in flight, and what starts while the rewind waits, without counting as an interrupt', async () => {
    const { steering: people } = steering();
    let rewindWaiting = true;
    const inFlight = fakeScope();
    await people.interruptible('model', async () => people.stopInFlight(() => rewindWaiting), inFlight);
    expect(inFlight.cancelled).toBe(1);
    expect(people.takeInterrupt()).toBe(false);
    const next = fakeScope();
    await people.interruptible('tools', async () => undefined, next);
    expect(next.cancelled).toBe(1);
    rewindWaiting = false;
    const after = fakeScope();
    await people.interruptible('tools', async () => undefined, after);
    expect(after.cancelled).toBe(0);
  });
});

describe('approvals', () => {
  test('answers are checked before they enter history: only calls that wait, only allow or deny', () => {
    const { steering: people } = steering();
    expect(() => people.checkAnswer({ toolUseId: 'toolu_1', decision: 'allow' })).toThrow(
      'No tool call toolu_1 is waiting for approval',
    );
    expect(() => people.checkAnswer(undefined)).toThrow('No tool call undefined is waiting for approval');
    people.pendingApprovals.push({ toolUseId: 'toolu_1', name: 'Bash', summary: 'Bash rm x', input: {} });
    expect(() => people.checkAnswer({ toolUseId: 'toolu_1', decision: 'allow' })).not.toThrow();
    expect(() => people.checkAnswer({ toolUseId: 'toolu_1', decision: 'maybe' as 'allow' })).toThrow(
      'decision must be "allow" or "deny"',
    );
  });

  test('an answer is acknowledged and refreshes the view', () => {
    const { steering: people, changes } = steering();
    expect(people.answer({ toolUseId: 'toolu_1', decision: 'deny', feedback: 'keep it' })).toEqual({
      toolUseId: 'toolu_1',
      decision: 'deny',
    });
    expect(changes.count).toBe(1);
  });
});

describe("sub-agents' approvals", () => {
  test("a sub-agent's waiting calls show as the session's, tagged with the agent; a new report replaces the old one", () => {
    const { steering: people, changes } = steering();
    const call = { toolUseId: 'toolu_b', name: 'Bash', summary: 'Bash ls', input: { command: 'ls' } };
    people.subAgentWaiting({ workflowId: 'child-1', description: 'list files', pending: [call] });
    expect(people.pendingApprovals).toEqual([{ ...call, agent: { workflowId: 'child-1', description: 'list files' } }]);
    // A grandchild's call keeps the agent it came from.
    const deeper = { ...call, toolUseId: 'toolu_c', agent: { workflowId: 'grandchild', description: 'deeper' } };
    people.subAgentWaiting({ workflowId: 'child-1', description: 'list files', pending: [deeper] });
    expect(people.pendingApprovals).toEqual([deeper]);
    expect(() => people.checkAnswer({ toolUseId: 'toolu_c', decision: 'allow' })).not.toThrow();
    people.dropForwarded((child) => child === 'child-1');
    expect(people.pendingApprovals).toEqual([]);
    expect(changes.count).toBe(2);
  });
});

describe('plan approvals and questions', () => {
  test('a mode only with a plan approval; an answer only to a question waiting, every question of it answered', () => {
    const { steering: people } = steering();
    people.pendingApprovals.push({ toolUseId: 'toolu_w', name: 'Write', summary: 'Write a', input: {} });
    people.pendingApprovals.push({
      toolUseId: 'toolu_p',
      name: 'ExitPlanMode',
      summary: 'ExitPlanMode',
      input: {},
      plan: 'p',
    });
    expect(() => people.checkAnswer({ toolUseId: 'toolu_w', decision: 'allow', mode: 'acceptEdits' })).toThrow(
      'mode is only for approving a plan',
    );
    expect(() => people.checkAnswer({ toolUseId: 'toolu_p', decision: 'allow', mode: 'acceptEdits' })).not.toThrow();

    const question = { question: 'Which?', header: 'Which', options: [], multiSelect: false };
    people.pendingQuestions.push({ toolUseId: 'toolu_q', questions: [question] });
    expect(() => people.checkQuestionAnswer({ toolUseId: 'toolu_x', answers: { 'Which?': 'A' } })).toThrow(
      'No AskUserQuestion call toolu_x is waiting for an answer',
    );
    expect(() => people.checkQuestionAnswer({ toolUseId: 'toolu_q', answers: { Other: 'A' } })).toThrow(
      /^Invalid answer: not asked/,
    );
    expect(() => people.checkQuestionAnswer({ toolUseId: 'toolu_q', answers: { 'Which?': 'A' } })).not.toThrow();
    expect(people.answerQuestion({ toolUseId: 'toolu_q', answers: { 'Which?': 'A' } })).toEqual({
      toolUseId: 'toolu_q',
      answered: 1,
    });
  });

  test('the permission mode travels to the next run', () => {
    const { steering: first } = steering();
    first.permissionMode = 'acceptEdits';
    const { steering: next } = steering();
    next.restore(first.carry());
    expect(next.permissionMode).toBe('acceptEdits');
  });
});
