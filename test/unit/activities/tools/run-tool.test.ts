/** The tool activity around the tools: the tool-result budget's scratch space and approval feedback. */
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { LocalContentStore } from '../../../../src/store/content-store';
import { LocalEffectJournal } from '../../../../src/store/effect-journal';
import { unconfined } from '../../../../src/sandbox/command-sandbox';
import { createToolActivities } from '../../../../src/activities/tools/run-tool';
import type { RunToolInput, RunToolOutput } from '../../../../src/shared/activity-io';
import { scratchDir } from '../../../support/paths';

let workdir: string;
let outside: string;
let store: LocalContentStore;

beforeEach(() => {
  workdir = join(scratchDir('run-tool'), 'repo');
  mkdirSync(workdir);
  outside = scratchDir('outside');
  writeFileSync(join(workdir, 'big.txt'), `${'x'.repeat(40)}\n`.repeat(1999) + 'the last line\n');
  store = new LocalContentStore(scratchDir('store'));
});

function runTool(overrides: Partial<RunToolInput> = {}): Promise<RunToolOutput> {
  const { runTool: activity } = createToolActivities({
    store,
    journal: new LocalEffectJournal(scratchDir('journal')),
    sandbox: unconfined(),
  });
  return new MockActivityEnvironment().run(activity, {
    sessionId: 'session-1',
    toolUseId: 'toolu_big',
    name: 'Read',
    input: { file_path: 'big.txt' },
    workdir,
    fileStates: [],
    ...overrides,
  });
}

const textOf = async (content: { text: string } | { ref: string }) =>
  'text' in content ? content.text : store.get(content.ref);

describe('the tool-result budget', () => {
  test('saves a large result under .agent/, with a .gitignore created once and never overwritten', async () => {
    const output = await runTool();
    expect(await textOf(output.result.content)).toMatch(
      /^Output too large \(\d+ characters\); the full output was saved to \.agent\/tool-results\/toolu_big\.txt/,
    );
    expect(readFileSync(join(workdir, '.agent', 'tool-results', 'toolu_big.txt'), 'utf8')).toContain(
      '2000\tthe last line',
    );
    expect(readFileSync(join(workdir, '.agent', '.gitignore'), 'utf8')).toBe('*\n');

    writeFileSync(join(workdir, '.agent', '.gitignore'), 'mine\n');
    await runTool({ toolUseId: 'toolu_second' });
    expect(readFileSync(join(workdir, '.agent', '.gitignore'), 'utf8')).toBe('mine\n');
    expect(readdirSync(join(workdir, '.agent', 'tool-results')).sort()).toEqual(['toolu_big.txt', 'toolu_second.txt']);
  });

  test('never writes through a symlink: not a folder that leads out of the workdir, not a file', async () => {
    mkdirSync(join(workdir, '.agent'));
    symlinkSync(outside, join(workdir, '.agent', 'tool-results'));
    const refused = await runTool();
    expect(await textOf(refused.result.content)).toMatch(
      /^Output too large \(\d+ characters\), and it could not be saved: .*outside the working directory/,
    );
    expect(readdirSync(outside)).toEqual([]);

    const elsewhere = join(outside, 'victim.txt');
    writeFileSync(elsewhere, 'precious\n');
    writeFileSync(join(outside, '.gitignore'), 'theirs\n');
    const other = join(scratchDir('run-tool'), 'repo2');
    mkdirSync(join(other, '.agent', 'tool-results'), { recursive: true });
    writeFileSync(join(other, 'big.txt'), readFileSync(join(workdir, 'big.txt')));
    symlinkSync(elsewhere, join(other, '.agent', 'tool-results', 'toolu_big.txt'));
    symlinkSync(join(outside, '.gitignore'), join(other, '.agent', '.gitignore'));
    await runTool({ workdir: other });
    expect(readFileSync(elsewhere, 'utf8')).toBe('precious\n');
    expect(readFileSync(join(outside, '.gitignore'), 'utf8')).toBe('theirs\n');
    expect(lstatSync(join(other, '.agent', 'tool-results', 'toolu_big.txt')).isSymbolicLink()).toBe(false);
  });
});

test("an approval's feedback follows the output, also when the result is stored by reference", async () => {
  const output = await runTool({ name: 'Bash', input: { command: 'seq 1 1000' }, approvalFeedback: 'only count' });
  expect('ref' in output.result.content).toBe(true);
  expect(await textOf(output.result.content)).toMatch(
    /\n1000\n\nExit code: 0\n\nUser feedback on approval: only count$/,
  );
});

test('an Edit interrupted while it writes reports the change that landed, not that it was stopped', async () => {
  writeFileSync(join(workdir, 'a.ts'), 'const a = 1;\n');
  const environment = new MockActivityEnvironment();
  const journal = new LocalEffectJournal(scratchDir('journal'));
  // The interrupt reaches the activity while the Edit records its intent, just before the write.
  const record = journal.record.bind(journal);
  journal.record = async (...args) => {
    environment.cancel();
    return record(...args);
  };
  const { runTool: activity } = createToolActivities({ store, journal, sandbox: unconfined() });
  const output: RunToolOutput = await environment.run(activity, {
    sessionId: 'session-1',
    toolUseId: 'toolu_edit',
    name: 'Edit',
    input: { file_path: 'a.ts', old_string: '1', new_string: '2' },
    workdir,
    fileStates: [{ path: join(workdir, 'a.ts'), sha256: createHash('sha256').update('const a = 1;\n').digest('hex') }],
  });
  expect(readFileSync(join(workdir, 'a.ts'), 'utf8')).toBe('const a = 2;\n');
  expect(output.result.isError).toBe(false);
  expect(await textOf(output.result.content)).toMatch(
    /^Interrupted by the user while it ran; it had got this far:\nThe file a\.ts has been updated/,
  );
});

test('a tool_use id that comes again in another run (a reused workflow id) is a new call, never an edit already made', async () => {
  writeFileSync(join(workdir, 'a.ts'), 'x = 1\n');
  const journal = new LocalEffectJournal(scratchDir('journal'));
  const { runTool: activity } = createToolActivities({ store, journal, sandbox: unconfined() });
  const edit = (runId: string, from: string, to: string) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: 'session-1', runId }, activityId: '7' }).run(
      activity,
      {
        sessionId: 'session-1',
        toolUseId: 'toolu_01', // an endpoint that numbers its ids per response
        name: 'Edit',
        input: { file_path: 'a.ts', old_string: from, new_string: to },
        workdir,
        fileStates: [
          {
            path: join(workdir, 'a.ts'),
            sha256: createHash('sha256')
              .update(readFileSync(join(workdir, 'a.ts'), 'utf8'))
              .digest('hex'),
          },
        ],
      },
    ) as Promise<RunToolOutput>;
  await edit('run-1', 'x = 1', 'x = 2');
  const second = await edit('run-2', 'x = 2', 'x = 3');
  expect(second.result.isError).toBe(false);
  expect(readFileSync(join(workdir, 'a.ts'), 'utf8')).toBe('x = 3\n');
});

test('a write that crashed between its temporary file and the rename leaves nothing behind once retried', async () => {
  writeFileSync(join(workdir, 'a.ts'), 'x = 1\n');
  const journal = new LocalEffectJournal(scratchDir('journal'));
  const { runTool: activity } = createToolActivities({ store, journal, sandbox: unconfined() });
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  const realRename = fs.renameSync;
  let crashed = false;
  // The first attempt dies between writing the file's temporary copy and renaming it into place.
  const rename = jest.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
    if (!crashed && String(from).endsWith('.agent-tmp')) {
      crashed = true;
      throw Object.assign(new Error('the worker died here'), { code: 'EIO' });
    }
    return realRename(from, to);
  });
  const attempt = (number: number) =>
    new MockActivityEnvironment({
      workflowExecution: { workflowId: 'session-1', runId: 'run-1' },
      activityId: '3',
      attempt: number,
    }).run(activity, {
      sessionId: 'session-1',
      toolUseId: 'toolu_w',
      name: 'Write',
      input: { file_path: 'b.ts', content: 'new file\n' },
      workdir,
      fileStates: [],
    });
  try {
    await expect(attempt(1)).rejects.toThrow('the worker died here');
    await attempt(2);
  } finally {
    rename.mockRestore();
  }
  expect(crashed).toBe(true);
  expect(readFileSync(join(workdir, 'b.ts'), 'utf8')).toBe('new file\n');
  expect(readdirSync(workdir).filter((name) => name.includes('agent-tmp'))).toEqual([]);
});

test('closing a session removes its journal and a temporary file a crash left behind', async () => {
  const journalDir = scratchDir('journal');
  const journal = new LocalEffectJournal(journalDir);
  const leftover = join(workdir, 'c.ts.0123456789ab.agent-tmp');
  writeFileSync(leftover, 'half');
  await journal.record('session-1', 'run-1/4', {
    path: join(workdir, 'c.ts'),
    beforeHash: null,
    afterHash: 'x',
    message: 'm',
    temporary: leftover,
  });
  await journal.record('session-2', 'run-9/1', {
    path: join(workdir, 'd.ts'),
    beforeHash: null,
    afterHash: 'y',
    message: 'm',
  });
  await journal.close('session-1');
  expect(readdirSync(workdir).filter((name) => name.includes('agent-tmp'))).toEqual([]);
  expect(await journal.find('session-1', 'run-1/4')).toBeUndefined();
  expect(await journal.find('session-2', 'run-9/1')).toMatchObject({ afterHash: 'y' });
});
