/**
 * The registry plans each call from the tools' own declarations, and a new tool needs nothing
 * but its file and a line in the registry: the test-only tool below goes through planning, every
 * workflow decision and the tool activity without any change under src/workflows/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { microcompact } from '../../../../src/activities/context/context-edits';
import { LocalContentStore } from '../../../../src/store/content-store';
import { LocalEffectJournal } from '../../../../src/store/effect-journal';
import { TOOLS, ToolRegistry } from '../../../../src/activities/tools/registry';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { createToolActivities } from '../../../../src/activities/tools/run-tool';
import { defineTool } from '../../../../src/activities/tools/tool';
import type { PlannedToolUse, RunToolOutput } from '../../../../src/shared/activity-io';
import type { ConversationMessage } from '../../../../src/shared/conversation';
import { CLEARED_TOOL_RESULT } from '../../../../src/shared/limits';
import { toolActivityOptions } from '../../../../src/workflows/activity-options';
import { recordFileState } from '../../../../src/workflows/core/loop-state';
import { runToolUses } from '../../../../src/workflows/turn/run-tools';
import { matchesAllowRule, needsApproval } from '../../../../src/workflows/core/approval-rules';
import { cancelsSiblings, partitionToolUses } from '../../../../src/workflows/core/tool-batches';
import { rulesOf } from '../../../../src/workflows/core/tool-rules';
import { loopState } from '../../../support/loop-state';
import { scratchDir } from '../../../support/paths';

let workdir: string;

beforeEach(() => {
  workdir = join(scratchDir('registry'), 'repo');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  writeFileSync(join(workdir, 'src', 'a.ts'), '');
});

const ALL = TOOLS.tools.map((tool) => tool.name);

describe('the registry', () => {
  test('offers only allowed tools, with JSON schemas from zod', () => {
    const tools = TOOLS.apiDefinitions(['Read', 'Bash']);
    expect(tools.map((tool) => tool.name)).toEqual(['Read', 'Bash']);
    expect(tools[1]!.input_schema).toMatchObject({
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    });
  });

  test('plans each tool_use: validation, concurrency safety, summary, target file', async () => {
    expect((await TOOLS.plan({ id: '1', name: 'Read', input: { file_path: 'src/a.ts' } }, workdir, ALL)).plan).toEqual({
      ok: true,
      concurrencySafe: true,
      summary: 'Read src/a.ts',
      filePath: join(workdir, 'src/a.ts'),
      // What Read(…) rules match, set on every plan with a path (older plans match their subject).
      rules: { readsFile: true, labelsItself: true, rulePath: join(workdir, 'src/a.ts') },
    });
    expect(
      (
        await TOOLS.plan(
          { id: '2', name: 'Edit', input: { file_path: join(workdir, 'src/a.ts'), old_string: 'a', new_string: 'b' } },
          workdir,
          ALL,
        )
      ).plan,
    ).toMatchObject({
      concurrencySafe: false,
      summary: 'Edit src/a.ts',
    });
    expect(
      (await TOOLS.plan({ id: '3', name: 'Bash', input: { command: 'ls' } }, workdir, ['Read'])).plan,
    ).toMatchObject({
      ok: false,
      errorText: expect.stringContaining('No such tool available: Bash'),
    });
    expect(
      (await TOOLS.plan({ id: '4', name: 'Bash', input: { command: 'ls', timeout: 900_000 } }, workdir, ALL)).plan,
    ).toMatchObject({
      ok: false,
      errorText: expect.stringMatching(
        /^<tool_use_error>InputValidationError: Bash failed due to the following issue\(s\):\n- `timeout`/,
      ),
    });
  });

  test("copies each tool's rules onto the plan: approval and its subject, cancelling, timeout, reading, changing files", async () => {
    const plan = async (name: string, input: unknown) =>
      (await TOOLS.plan({ id: 'x', name, input }, workdir, ALL)).plan;
    expect(await plan('Bash', { command: 'npm test', timeout: 5_000 })).toMatchObject({
      rules: {
        needsApproval: true,
        subject: 'npm test',
        cancelsLaterCallsOnError: true,
        timeoutMs: 65_000,
        changesFiles: true,
      },
    });
    expect(await plan('Bash', { command: 'ls' })).toMatchObject({ rules: { timeoutMs: 180_000 } });
    expect(await plan('Write', { file_path: 'b.ts', content: '' })).toMatchObject({
      rules: { needsApproval: true, subject: 'b.ts', changesFiles: true },
    });
    expect(await plan('Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' })).toMatchObject({
      rules: { needsApproval: true, subject: 'src/a.ts', changesFiles: true },
    });
    // Their own summary is their batch's tool summary when they run alone; Bash, Write and Edit go to the small model.
    expect(await plan('Glob', { pattern: '*.ts' })).toMatchObject({ rules: { labelsItself: true } });
    expect(await plan('Grep', { pattern: 'x' })).toMatchObject({ rules: { labelsItself: true } });
    expect((await plan('Bash', { command: 'ls' })).rules?.labelsItself).toBeUndefined();
    // A known tool's fixed rules hold for invalid input too (a failing Bash call still cancels the calls after it).
    expect(await plan('Bash', { cmd: 'ls' })).toEqual({
      ok: false,
      errorText: expect.any(String),
      rules: { needsApproval: true, cancelsLaterCallsOnError: true, changesFiles: true },
    });
    expect(await plan('Nope', {})).toEqual({ ok: false, errorText: expect.any(String), rules: {} });
  });

  test('answers the activities: which results microcompact may clear, and what a call is about', () => {
    // A question's answers and plan mode's changes are not to be cleared: the model cannot ask again for free.
    const PERSON = ['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion'];
    expect(ALL.filter((name) => !PERSON.includes(name)).every((name) => TOOLS.resultsClearable(name))).toBe(true);
    expect(PERSON.some((name) => TOOLS.resultsClearable(name))).toBe(false);
    expect(TOOLS.resultsClearable('Nope')).toBe(false);
    expect(TOOLS.subjectOf('Bash', { command: 'npm test' })).toBe('npm test');
    expect(TOOLS.subjectOf('Grep', { pattern: 'parseConfig' })).toBe('parseConfig');
    expect(TOOLS.subjectOf('Read', { path: 'wrong field' })).toBe('');
  });
});

/** A tool that exists only in this test: one object, registered in one line. */
const lintTool = defineTool({
  name: 'Lint',
  description: 'Runs the linter on a path (fix: also rewrite the files).',
  schema: z.object({ path: z.string().min(1), fix: z.boolean().optional() }).strict(),
  needsApproval: true,
  isConcurrencySafe: (input) => !input.fix,
  cancelsLaterCallsOnError: true,
  activityTimeoutMs: () => 900_000,
  resultsClearable: false,
  readsFile: true,
  changesFiles: false,
  subject: (input) => input.path,
  summarize: (input) => `Lint ${input.path}`,
  targetPath: (input) => input.path,
  async execute(input) {
    return {
      text: `linted ${input.path}`,
      isError: input.path === 'broken.ts',
      fileState: { path: join(workdir, input.path), sha256: 'f00d' },
    };
  },
});

describe('a new tool is one file plus one line in the registry', () => {
  const tools = new ToolRegistry([...TOOLS.tools, lintTool]);
  const allowed = ['Read', 'Lint'];
  const lint = (path: string, fix = false): Promise<PlannedToolUse> =>
    tools.plan({ id: `toolu_${path}`, name: 'Lint', input: { path, fix } }, workdir, allowed);
  const read = (id: string): Promise<PlannedToolUse> =>
    tools.plan({ id, name: 'Read', input: { file_path: 'src/a.ts' } }, workdir, allowed);

  test('the model is offered it with its schema, and its calls are planned with its rules', async () => {
    expect(tools.apiDefinitions(allowed).map((tool) => tool.name)).toEqual(['Read', 'Lint']);
    expect((await lint('src/a.ts')).plan).toEqual({
      ok: true,
      concurrencySafe: true,
      summary: 'Lint src/a.ts',
      filePath: join(workdir, 'src/a.ts'),
      rules: {
        needsApproval: true,
        subject: 'src/a.ts',
        cancelsLaterCallsOnError: true,
        timeoutMs: 900_000,
        readsFile: true,
        rulePath: join(workdir, 'src/a.ts'),
      },
    });
    expect((await tools.plan({ id: 'x', name: 'Lint', input: {} }, workdir, ['Read'])).plan).toMatchObject({
      ok: false,
      rules: { needsApproval: true },
    });
  });

  test('the workflow follows its rules without knowing its name', async () => {
    const call = await lint('src/a.ts', true);
    expect(rulesOf(call).needsApproval).toBe(true);
    expect(needsApproval('ask', [], call)).toBe(true);
    expect(needsApproval('auto', [], call)).toBe(false);
    // Its path as rules see it: anchored at the workdir.
    expect(matchesAllowRule('Lint(src/a.ts)', call, workdir)).toBe(true);
    expect(matchesAllowRule('Lint(a.ts)', call, workdir)).toBe(true);
    expect(matchesAllowRule('Lint(./a.ts)', call, workdir)).toBe(false);
    expect(needsApproval('ask', ['Lint(src/:*)'], call)).toBe(true);
    expect(needsApproval('ask', ['Lint'], call)).toBe(false);
    // Concurrency safety is per input: a fixing run goes alone, a checking one alongside reads.
    const batches = partitionToolUses([await read('r1'), await lint('src/a.ts'), call, await read('r2')], 10);
    expect(batches.map((batch) => batch.calls.map((planned) => planned.id))).toEqual([
      ['r1', 'toolu_src/a.ts'],
      ['toolu_src/a.ts'],
      ['r2'],
    ]);
    expect(cancelsSiblings(call, { toolUseId: call.id, isError: true, content: { text: 'lint failed' } })).toBe(true);
    expect(toolActivityOptions(call, 'Lint src/a.ts')).toMatchObject({
      startToCloseTimeout: 900_000,
      summary: 'Lint src/a.ts',
    });
    const state = recordFileState(
      loopState(),
      { path: join(workdir, 'src/a.ts'), sha256: 'f00d' },
      rulesOf(call).readsFile === true,
    );
    expect(state.recentFiles).toEqual([join(workdir, 'src/a.ts')]);
  });

  test('a failing call cancels the calls after it in the same response', async () => {
    const calls = [await lint('broken.ts', true), await read('r1')];
    const results: Record<string, RunToolOutput> = {};
    await runToolUses(calls, {
      approve: async () => null,
      run: async (planned) => ({
        result: { toolUseId: planned.id, isError: planned.name === 'Lint', content: { text: 'ran' } },
      }),
      onBatch: () => {},
      onResult: (planned, output) => {
        results[planned.id] = output;
      },
    });
    expect(results.r1!.result.content).toEqual({
      text: expect.stringContaining('Cancelled: parallel tool call Lint broken.ts errored'),
    });
  });

  test('its results are kept by microcompact, as the tool says', () => {
    const message = (tool: string, index: number): ConversationMessage => ({
      role: 'user',
      kind: 'tool_results',
      results: [{ toolUseId: `t${index}`, isError: false, content: { text: `result ${index}` }, toolName: tool }],
    });
    const edited = microcompact([message('Lint', 0), message('Read', 1), message('Read', 2)], 1, tools)!;
    expect(edited.map((entry) => (entry.kind === 'tool_results' ? entry.results[0]!.content : null))).toEqual([
      { text: 'result 0' },
      { text: CLEARED_TOOL_RESULT },
      { text: 'result 2' },
    ]);
  });

  test('the tool activity runs it', async () => {
    const activities = createToolActivities({
      store: new LocalContentStore(scratchDir('store')),
      journal: new LocalEffectJournal(scratchDir('journal')),
      sandbox: unconfined(),
      tools,
    });
    const output = await new MockActivityEnvironment().run(activities.runTool, {
      sessionId: 'session-1',
      toolUseId: 'toolu_lint',
      name: 'Lint',
      input: { path: 'src/a.ts' },
      workdir,
      fileStates: [],
    });
    expect(output).toEqual({
      result: { toolUseId: 'toolu_lint', isError: false, content: { text: 'linted src/a.ts' }, toolName: 'Lint' },
      fileState: { path: join(workdir, 'src/a.ts'), sha256: 'f00d' },
    });
  });
});
