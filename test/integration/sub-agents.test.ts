/**
 * Sub-agents as users rely on them: `Task` calls run as child workflows, in parallel, answer as
 * tool results, survive a worker's death, stop with their parent, and ask the parent's people
 * for approval.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult, AgentState, TranscriptPage } from '../../src/shared/contract';
import { barrier } from '../support/barrier';
import {
  type FakeReply,
  lastToolResults,
  type RecordedRequest,
  reply,
  text,
  toolResultText,
  toolUse,
  turnOf,
  taskOf,
} from '../support/fake-anthropic';
import { fileHarness, Harness, killProcess, makeRepo, uniqueId } from '../support/harness';

jest.setTimeout(180_000);

const harness = fileHarness();

/** The task a request works on: its first user message (the parent's prompt, or a sub-agent's). */
const TASKS = ['callers in packages/a', 'callers in packages/b', 'callers in packages/c'];

test('three Task calls in one response run as three child workflows at once; their answers are the tool results', async () => {
  const workdir = makeRepo({
    'packages/a/x.ts': 'parse()\n',
    '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews\n---\nReview.\n',
  });
  // Each sub-agent's first model call is held until all three have made theirs: run one after
  // another, they would never get there, and the test would time out.
  const firstCalls = barrier(3);
  harness.fake.handler = async (request): Promise<FakeReply> => {
    const task = taskOf(request);
    const index = TASKS.findIndex((candidate) => task.includes(candidate));
    if (index < 0) {
      if (turnOf(request) === 0)
        return reply(
          TASKS.map((prompt, n) =>
            toolUse('Task', { description: `find ${'abc'[n]}`, prompt: `Find ${prompt}` }, `toolu_task${n}`),
          ),
        );
      return reply([text('All callers found.')]);
    }
    if (turnOf(request) === 0) {
      firstCalls.arrived();
      await firstCalls.all;
      if (index === 0) return reply([toolUse('Read', { file_path: 'packages/a/x.ts' })]);
    }
    return reply([text(`Answer ${index}: ${index === 0 ? requestTextOf(request) : 'none'}`)]);
  };
  const handle = await harness.start({ prompt: 'Find every caller of parse', workdir, toolSummaries: false });
  const result = (await handle.result()) as AgentResult;
  expect(result).toMatchObject({ reason: 'completed', finalText: 'All callers found.' });

  const parentCalls = harness.fake.requests.filter((request) => taskOf(request).includes('every caller'));
  const answers = lastToolResults(parentCalls.at(-1)!);
  expect(answers.map((block) => [block.tool_use_id, block.is_error ?? false])).toEqual([
    ['toolu_task0', false],
    ['toolu_task1', false],
    ['toolu_task2', false],
  ]);
  expect(toolResultText(answers[0]!)).toContain('Answer 0:');
  expect(toolResultText(answers[0]!)).toContain('parse()'); // the sub-agent read the file
  expect(toolResultText(answers[2]!)).toBe('Answer 2: none');

  // Children in the Temporal sense: the UI lists them under the parent, with their description.
  const childId = `${handle.workflowId}-task-toolu_task1`;
  const child = harness.client.workflow.getHandle(childId);
  const description = await child.describe();
  expect(description.parentExecution?.workflowId).toBe(handle.workflowId);
  expect(await description.staticSummary()).toBe('Task: find b');
  // Visibility lists them by parent, as docs/sub-agents.md's example does.
  let listed: string[] = [];
  for (let round = 0; listed.length < 3; round++) {
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, 100)); // visibility catches up
    listed = [];
    for await (const execution of harness.client.workflow.list({ query: `ParentWorkflowId='${handle.workflowId}'` }))
      listed.push(execution.workflowId);
  }
  expect(listed.sort()).toEqual([0, 1, 2].map((n) => `${handle.workflowId}-task-toolu_task${n}`));
  // general-purpose by default, as in Claude Code: the parent's tools, but no Task of their own.
  const childCall = harness.fake.requests.find((request) => taskOf(request).includes(TASKS[1]!))!;
  expect(childCall.body.tools?.map((tool) => tool.name)).toEqual([
    'Read',
    'Write',
    'Edit',
    'Bash',
    'Glob',
    'Grep',
    'TodoWrite',
    'NotebookEdit',
    'TaskOutput',
    'TaskStop',
  ]);
  // The parent's usage includes its sub-agents'.
  const childUsage = await Promise.all(
    [0, 1, 2].map(
      async (n) =>
        ((await harness.client.workflow.getHandle(`${handle.workflowId}-task-toolu_task${n}`).result()) as AgentResult)
          .usage.outputTokens,
    ),
  );
  const page = await handle.query<TranscriptPage>('transcript');
  const own = page.entries.flatMap((entry) => (entry.type === 'assistant' ? [entry.usage.outputTokens] : []));
  expect(result.usage.outputTokens).toBe([...own, ...childUsage].reduce((sum, tokens) => sum + tokens, 0));
  // The repository's agent types are not used unless it is trusted, and the transcript says so.
  expect(page.entries.find((entry) => entry.type === 'session')).toMatchObject({
    skippedRepoAgents: ['.claude/agents/reviewer.md (not trusted)'],
  });
});

function requestTextOf(request: RecordedRequest): string {
  return lastToolResults(request).map(toolResultText).join('\n');
}

test('maxParallelAgents: with 1, the second sub-agent starts only when the first is done', async () => {
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
  let firstAsked!: () => void;
  const asked = new Promise<void>((resolve) => (firstAsked = resolve));
  harness.fake.handler = async (request): Promise<FakeReply> => {
    if (taskOf(request).includes('first part')) {
      firstAsked();
      await firstHeld;
      return reply([text('first')]);
    }
    if (taskOf(request).includes('second part')) return reply([text('second')]);
    return turnOf(request) === 0
      ? reply([
          toolUse('Task', { description: 'first', prompt: 'Do the first part' }, 'toolu_p1'),
          toolUse('Task', { description: 'second', prompt: 'Do the second part' }, 'toolu_p2'),
        ])
      : reply([text('done')]);
  };
  const handle = await harness.start({
    prompt: 'Two parts',
    workdir: makeRepo({}),
    toolSummaries: false,
    maxParallelAgents: 1,
  });
  await asked;
  // Started together, the second would exist by now (both starts go out in the same workflow task).
  await expect(harness.client.workflow.getHandle(`${handle.workflowId}-task-toolu_p2`).describe()).rejects.toThrow(
    /not found/i,
  );
  releaseFirst();
  expect(await handle.result()).toMatchObject({ reason: 'completed' });
  expect(lastToolResults(harness.fake.requests.at(-1)!).map(toolResultText)).toEqual(['first', 'second']);
});

test('an interrupt of the parent stops its sub-agents, which end with a result', async () => {
  let childAsked!: () => void;
  const asked = new Promise<void>((resolve) => (childAsked = resolve));
  let releaseHeld!: (reply: FakeReply) => void;
  const held = new Promise<FakeReply>((resolve) => (releaseHeld = resolve));
  harness.fake.handler = (request): FakeReply => {
    if (taskOf(request).includes('slow search')) {
      childAsked();
      // The sub-agent's model does not answer: only the interrupt ends it.
      return { kind: 'hold', release: held };
    }
    return turnOf(request) === 0
      ? reply([toolUse('Task', { description: 'slow', prompt: 'Do a slow search' }, 'toolu_slow')])
      : reply([text('done')]);
  };
  const handle = await harness.start({ prompt: 'Delegate', workdir: makeRepo({}), toolSummaries: false });
  await asked;
  await handle.executeUpdate('interrupt', { args: [{}] });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('aborted_tools');
  const child = (await harness.client.workflow
    .getHandle(`${handle.workflowId}-task-toolu_slow`)
    .result()) as AgentResult;
  expect(child.reason).toBe('aborted_streaming');
  releaseHeld(reply([text('(too late: the sub-agent was stopped)')]));
});

test("a sub-agent's Bash call in ask mode waits in the parent's state and is approved through the parent", async () => {
  const workdir = makeRepo({});
  harness.fake.handler = (request): FakeReply => {
    if (taskOf(request).includes('Write the marker')) {
      return turnOf(request) === 0
        ? reply([toolUse('Bash', { command: 'echo approved > marker.txt' }, 'toolu_bash')])
        : reply([text('marker written')]);
    }
    return turnOf(request) === 0
      ? reply([
          toolUse(
            'Task',
            { description: 'write marker', prompt: 'Write the marker', subagent_type: 'writer' },
            'toolu_writer',
          ),
        ])
      : reply([text('done')]);
  };
  const handle = await harness.start({
    prompt: 'Get the marker written',
    workdir,
    permissionMode: 'ask',
    toolSummaries: false,
    agents: {
      writer: { description: 'Writes files with shell commands', prompt: 'You write files.', tools: ['Bash'] },
    },
  });
  let state = await handle.query<AgentState>('state');
  while (state.pendingApprovals.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await handle.query<AgentState>('state');
  }
  expect(state.pendingApprovals).toEqual([
    expect.objectContaining({
      toolUseId: 'toolu_bash',
      name: 'Bash',
      agent: { workflowId: `${handle.workflowId}-task-toolu_writer`, description: 'write marker' },
    }),
  ]);
  expect(existsSync(join(workdir, 'marker.txt'))).toBe(false);
  // What people see: `status` names the sub-agent and says how to answer on the parent.
  const status = await harness.cli(['status', handle.workflowId]);
  expect(status.stdout).toContain(
    `waiting for approval: Bash echo approved > marker.txt (sub-agent "write marker")  →  durable-agent approve ${handle.workflowId} toolu_bash`,
  );
  await handle.executeUpdate('approveTool', { args: [{ toolUseId: 'toolu_bash', decision: 'allow' }] });
  const result = (await handle.result()) as AgentResult;
  expect(result.reason).toBe('completed');
  expect(existsSync(join(workdir, 'marker.txt'))).toBe(true);
  const last = harness.fake.requests.filter((request) => taskOf(request).includes('Get the marker')).at(-1)!;
  expect(toolResultText(lastToolResults(last)[0]!)).toBe('marker written');
  expect((await handle.query<AgentState>('state')).pendingApprovals).toEqual([]);
});

test('SIGKILL of the worker while sub-agents run changes nothing in the outcome', async () => {
  const own = await Harness.start(undefined, uniqueId('sub-agents-kill'));
  try {
    const workdir = makeRepo({});
    mkdirSync(join(workdir, 'notes'));
    writeFileSync(join(workdir, 'notes', 'n.txt'), 'note\n');
    const held = barrier(2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let killed = false;
    own.fake.handler = async (request): Promise<FakeReply> => {
      const task = taskOf(request);
      const index = ['part one', 'part two'].findIndex((part) => task.includes(part));
      if (index < 0)
        return turnOf(request) === 0
          ? reply([
              toolUse('Task', { description: 'one', prompt: 'Do part one' }, 'toolu_one'),
              toolUse('Task', { description: 'two', prompt: 'Do part two' }, 'toolu_two'),
            ])
          : reply([text(`parent saw: ${lastToolResults(request).map(toolResultText).join(' | ')}`)]);
      if (!killed) {
        held.arrived();
        await released;
      }
      return reply([text(`result of part ${index + 1}`)]);
    };
    const first = await own.startWorkerProcess();
    const handle = await own.start({ prompt: 'Split the work', workdir, toolSummaries: false });
    await held.all;
    await killProcess(first);
    killed = true;
    release();
    await own.startWorkerProcess();
    const result = (await handle.result()) as AgentResult;
    expect(result).toMatchObject({ reason: 'completed', finalText: 'parent saw: result of part 1 | result of part 2' });
  } finally {
    await own.stop();
  }
});

test("an input type's disallowedTools and maxTurns apply: no Bash offered, and it stops after its turns", async () => {
  const workdir = makeRepo({ 'src/a.ts': 'a\n' });
  harness.fake.handler = (request): FakeReply => {
    if (taskOf(request).includes('Look around'))
      return reply([toolUse('Read', { file_path: 'src/a.ts' }, `toolu_read${turnOf(request)}`)]);
    return turnOf(request) === 0
      ? reply([toolUse('Task', { description: 'look', prompt: 'Look around', subagent_type: 'looker' }, 'toolu_look')])
      : reply([text(`parent saw: ${requestTextOf(request)}`)]);
  };
  const handle = await harness.start({
    prompt: 'Have a look',
    workdir,
    toolSummaries: false,
    agents: {
      looker: {
        description: 'Looks',
        prompt: 'You look.',
        disallowedTools: ['Bash', 'Write', 'Edit'],
        maxTurns: 2,
        effort: 'low',
        mcpServers: ['github'],
      },
    },
  });
  const result = (await handle.result()) as AgentResult;
  const childRequests = harness.fake.requests.filter((request) => taskOf(request).includes('Look around'));
  expect(childRequests).toHaveLength(2);
  expect(childRequests[0]!.body.tools?.map((tool) => tool.name)).toEqual([
    'Read',
    'Glob',
    'Grep',
    'TodoWrite',
    'NotebookEdit',
    'TaskOutput',
    'TaskStop',
  ]);
  expect(result.finalText).toContain('stopped before it finished: max_turns');
});

describe('a sub-agent never exceeds its parent', () => {
  const READ_ONLY = ['Read', 'Glob', 'Grep', 'Task'];

  /**
   * The parent delegates `prompt` to `type`; the sub-agent makes one call a turn (a failed call
   * would cancel its siblings), then says what its last call got back.
   */
  function delegating(prompt: string, type: string, childCalls: Parameters<typeof toolUse>[]) {
    return (request: RecordedRequest): FakeReply => {
      if (taskOf(request).includes(prompt)) {
        const call = childCalls[turnOf(request)];
        return call ? reply([toolUse(...call)]) : reply([text(`sub-agent got: ${requestTextOf(request)}`)]);
      }
      return turnOf(request) === 0
        ? reply([toolUse('Task', { description: `${type} work`, prompt, subagent_type: type }, `toolu_${type}`)])
        : reply([text('done')]);
    };
  }

  async function transcriptOf(workflowId: string) {
    return (await harness.client.workflow.getHandle(workflowId).query<TranscriptPage>('transcript')).entries;
  }

  test('an input type listing Bash and Write under a parent without them: neither is offered nor run, and both transcripts say so', async () => {
    const workdir = makeRepo({ 'src/a.ts': 'a\n' });
    harness.fake.handler = delegating('Fix the bug in src/a.ts', 'fixer', [
      ['Bash', { command: 'echo ran > bash-ran.txt' }, 'toolu_child_bash'],
      ['Write', { file_path: 'written.txt', content: 'x' }, 'toolu_child_write'],
    ]);
    const handle = await harness.start({
      prompt: 'Get the bug fixed',
      workdir,
      allowedTools: READ_ONLY,
      toolSummaries: false,
      agents: { fixer: { description: 'Fixes bugs', prompt: 'You fix bugs.', tools: ['Read', 'Bash', 'Write'] } },
    });
    expect(await handle.result()).toMatchObject({ reason: 'completed', finalText: 'done' });

    const childRequests = harness.fake.requests.filter((request) => taskOf(request).includes('Fix the bug'));
    // What the sub-agent's API requests declared: Read, the only tool of its type that the parent has.
    expect(childRequests.map((request) => request.body.tools?.map((tool) => tool.name))).toEqual([
      ['Read'],
      ['Read'],
      ['Read'],
    ]);
    const results = [1, 2].map((turn) => lastToolResults(childRequests[turn]!)[0]!);
    expect(results.map((block) => [block.tool_use_id, block.is_error])).toEqual([
      ['toolu_child_bash', true],
      ['toolu_child_write', true],
    ]);
    expect(toolResultText(results[0]!)).toContain('No such tool available: Bash. Available tools: Read');
    expect(toolResultText(results[1]!)).toContain('No such tool available: Write. Available tools: Read');
    expect(existsSync(join(workdir, 'bash-ran.txt'))).toBe(false);
    expect(existsSync(join(workdir, 'written.txt'))).toBe(false);

    const childId = `${handle.workflowId}-task-toolu_fixer`;
    const child = (await harness.client.workflow.getHandle(childId).result()) as AgentResult;
    expect(child).toMatchObject({ reason: 'completed' });
    expect(child.finalText).toContain('No such tool available: Write');

    const note = {
      type: 'sub_agent_tools',
      toolUseId: 'toolu_fixer',
      agentType: 'fixer',
      leftOut: ['Bash', 'Write'],
      detail: 'Sub-agent type fixer asked for Bash, Write; the parent does not have them: left out.',
    };
    expect((await transcriptOf(handle.workflowId)).filter((entry) => entry.type === 'sub_agent_tools')).toEqual([
      { ...note, turn: 1 },
    ]);
    expect((await transcriptOf(childId)).filter((entry) => entry.type === 'sub_agent_tools')).toEqual([
      { ...note, turn: 0 },
    ]);
  });

  test("a trusted repository's .claude/agents type asking for Bash under the same parent gets no Bash", async () => {
    const workdir = makeRepo({
      '.claude/agents/shell.md':
        '---\nname: shell\ndescription: Runs shell commands\ntools: Bash, Read\n---\nYou run the tests.\n',
    });
    harness.fake.handler = delegating('Run the tests', 'shell', [
      ['Bash', { command: 'echo ran > bash-ran.txt' }, 'toolu_child_bash'],
    ]);
    const handle = await harness.start({
      prompt: 'Have the tests run',
      workdir,
      allowedTools: READ_ONLY,
      trustRepoHooks: true,
      toolSummaries: false,
    });
    expect(await handle.result()).toMatchObject({ reason: 'completed' });

    const childRequests = harness.fake.requests.filter((request) => taskOf(request).includes('Run the tests'));
    expect(childRequests[0]!.body.tools?.map((tool) => tool.name)).toEqual(['Read']);
    expect(toolResultText(lastToolResults(childRequests[1]!)[0]!)).toContain('No such tool available: Bash');
    expect(existsSync(join(workdir, 'bash-ran.txt'))).toBe(false);
    const childId = `${handle.workflowId}-task-toolu_shell`;
    for (const workflowId of [handle.workflowId, childId]) {
      expect((await transcriptOf(workflowId)).find((entry) => entry.type === 'sub_agent_tools')).toMatchObject({
        agentType: 'shell',
        leftOut: ['Bash'],
      });
    }
  });
});
