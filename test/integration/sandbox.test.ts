/**
 * A scripted model tries every escape of the security review against a real worker process:
 * with `AGENT_SANDBOX=bwrap` each is refused or contained; with `AGENT_SANDBOX=none` the same
 * script documents what an unconfined host lets through (the README's table).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentResult, TranscriptEntry } from '../../src/shared/contract';
import { transcriptQuery } from '../../src/workflows/definitions';
import { escapeScript, escapeTurns, type Attempt, type Outcome, type Targets } from '../support/escape-attempts';
import { byTurn, reply, text, toolResultText, toolUse, type RecordedRequest } from '../support/fake-anthropic';
import { Harness, makeRepo, waitForLine, uniqueId } from '../support/harness';
import { scratchDir } from '../support/paths';

jest.setTimeout(240_000);

const tag = uniqueId('t');
const SECRETS = {
  apiKey: `sk-ant-api03-SECRET-${tag}`,
  aws: `AKIASECRET${tag}`,
  home: `home-credential-${tag}`,
  other: `other-session-${tag}`,
  victim: `VICTIM-${tag}`,
};

/** Host processes whose command line holds `pattern` (pgrep's exit code 1 means none). */
function processesMatching(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Unconfined, daemons outlive their calls (as documented): they go with the test. */
function killSleeps(sleeps: number[]): void {
  for (const sleep of sleeps)
    for (const pid of processesMatching(`sleep ${sleep}`)) process.kill(Number(pid), 'SIGKILL');
}

/** Every tool_result of the session's last request, by tool_use id. */
function resultsById(request: RecordedRequest): Map<string, { text: string; isError: boolean }> {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const message of request.body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_result')
        results.set(block.tool_use_id!, { text: toolResultText(block), isError: block.is_error === true });
    }
  }
  return results;
}

describe.each(['bwrap', 'none'] as const)('AGENT_SANDBOX=%s', (mode) => {
  let harness: Harness;
  let worker: ChildProcess;
  let targets: Targets;
  let workdir: string;
  let attempts: Attempt[];
  let results: Map<string, { text: string; isError: boolean }>;
  let transcript: TranscriptEntry[];
  let survivors: Record<keyof Targets['sleeps'], string[]>;

  beforeAll(async () => {
    harness = await Harness.start();
    const workerHome = scratchDir('worker-home');
    mkdirSync(join(workerHome, '.aws'));
    writeFileSync(join(workerHome, '.aws', 'credentials'), `[default]\naws_secret_access_key = ${SECRETS.home}\n`);
    worker = harness.spawnWorker({
      AGENT_SANDBOX: mode,
      ANTHROPIC_API_KEY: SECRETS.apiKey,
      AWS_ACCESS_KEY_ID: SECRETS.aws,
      GH_PAT: SECRETS.aws,
      HOME: workerHome,
    });
    await waitForLine(worker, /durable-agent worker: task queue/);
    const base = 3_000_000 + Math.floor(Math.random() * 900_000);
    targets = {
      workerPid: worker.pid!,
      workerHome,
      contentDir: harness.contentDir,
      otherWorkdir: makeRepo({ 'secret.txt': `SECRET=${SECRETS.other}\n` }),
      outsideDir: scratchDir('outside'),
      sleeps: { setsid: base, nohup: base + 1, timedOut: base + 2 },
      tag,
    };

    // Another session first, so the content store holds a conversation that is not the attacker's.
    harness.fake.handler = () => reply([text('noted')]);
    expect((await harness.run({ prompt: `Remember ${SECRETS.victim}`, workdir: targets.otherWorkdir })).reason).toBe(
      'completed',
    );

    workdir = makeRepo({
      'src/a.ts': 'export const a = 1;\n',
      'big.txt': `${'a line of a large file\n'.repeat(4_000)}`,
      '.agent/settings.json': JSON.stringify({ stopHooks: [{ command: 'touch hook-ran' }] }),
    });
    const turns = escapeTurns(targets)
      .map((turn) => turn.filter((attempt) => attempt.outcome[mode] !== 'not run'))
      .filter((turn) => turn.length > 0);
    attempts = turns.flat();
    harness.fake.handler = byTurn(escapeScript(turns));
    const handle = await harness.start({ prompt: 'Try to leave the workspace', workdir });
    const result = (await handle.result()) as AgentResult;
    expect(result.reason).toBe('completed');
    survivors = {
      setsid: processesMatching(`sleep ${targets.sleeps.setsid}`),
      nohup: processesMatching(`sleep ${targets.sleeps.nohup}`),
      timedOut: processesMatching(`sleep ${targets.sleeps.timedOut}`),
    };
    results = resultsById(harness.fake.requests[harness.fake.requests.length - 1]!);
    transcript = (await handle.query(transcriptQuery, {})).entries;
  });

  afterAll(async () => {
    killSleeps(Object.values(targets?.sleeps ?? {}));
    await harness?.stop();
  });

  const outcome = (id: string): Outcome => attempts.find((attempt) => attempt.id === id)!.outcome[mode] as Outcome;
  const result = (id: string) => {
    const found = results.get(`toolu_${id}`);
    if (!found) throw new Error(`no result for ${id}`);
    return found;
  };

  test('every call got its one result, and the worker process is the same one throughout', () => {
    expect([...results.keys()].sort()).toEqual(attempts.map((attempt) => `toolu_${attempt.id}`).sort());
    expect(worker.exitCode).toBeNull();
    expect(worker.signalCode).toBeNull();
    expect(processesMatching(`bin/worker.js`)).toContain(String(targets.workerPid));
  });

  test('the file tools refuse everything outside the workdir and never stall, in every mode', () => {
    for (const id of [
      'glob_parent_env',
      'glob_etc',
      'glob_braces',
      'grep_glob_etc',
      'grep_other_session',
      'read_worker_environ',
      'read_content_store',
      'read_symlink_out',
    ]) {
      expect(result(id)).toMatchObject({ isError: true, text: expect.stringMatching(/outside the working directory/) });
    }
    expect(result('read_nul_path')).toMatchObject({ isError: true, text: expect.stringMatching(/NUL byte/) });
    for (const n of [1, 2, 3, 4, 5])
      expect(result(`read_fifo_${n}`)).toMatchObject({
        isError: true,
        text: expect.stringMatching(/not a regular file \(a FIFO\)/),
      });
    expect(result('read_sparse')).toMatchObject({
      isError: true,
      text: expect.stringMatching(/disk\.img looks like a binary file \(734\.0 MB\)/),
    });
    // Refused, and the refusal does not say where the link leads.
    expect(result('glob_symlink_dir')).toMatchObject({
      isError: true,
      text: expect.stringMatching(/goes through a symbolic link that leads outside/),
    });
    expect(result('glob_symlink_dir').text).not.toContain(targets.otherWorkdir);
    expect(result('grep_symlinks').text).not.toContain('SECRET');
    expect(result('grep_catastrophic')).toMatchObject({
      isError: true,
      text: expect.stringMatching(/stopped after 30 s/),
    });
  });

  test("the repository's hooks are found and skipped; the model cannot write new ones", () => {
    expect(transcript[1]).toEqual({
      type: 'session',
      turn: 0,
      workdir,
      sandbox: mode,
      // Sandboxed: the filtered network; unconfined: the worker's, and the entry says so.
      network:
        mode === 'bwrap'
          ? { mode: 'filtered', allowedDomains: expect.arrayContaining(['registry.npmjs.org']) }
          : { mode: 'host', warnings: [expect.stringContaining('their network is the worker')] },
      skippedRepoHooks: ['.agent/settings.json (1 stop hook)'],
    });
    expect(existsSync(join(workdir, 'hook-ran'))).toBe(false);
    expect(result('write_settings_hook')).toMatchObject({
      isError: true,
      text: expect.stringMatching(/needs a person's approval/),
    });
  });

  test('a large result is never written through a symlinked .agent/', () => {
    expect(result('bash_symlink_scratch').text).toContain('linked');
    expect(result('read_spill_through_symlink').text).toMatch(/could not be saved/);
    expect(readdirSync(targets.outsideDir).filter((name) => name !== `pwned-${tag}`)).toEqual([]);
  });

  test("commands' environments never hold the worker's secrets; sandboxed, no result holds any secret", () => {
    expect(result('bash_env').text).not.toContain(SECRETS.apiKey);
    expect(result('bash_env').text).not.toContain(SECRETS.aws);
    const all = [...results.values()].map((entry) => entry.text).join('\n');
    // Unconfined, /proc/<worker>/environ and the other reads above do leak them (documented).
    for (const secret of Object.values(SECRETS)) expect(all.includes(secret)).toBe(mode === 'none');
  });

  test.each([
    ['bash_worker_environ', () => result('bash_worker_environ').text.includes(SECRETS.apiKey)],
    ['bash_home_credentials', () => result('bash_home_credentials').text.includes(SECRETS.home)],
    ['bash_content_store', () => result('bash_content_store').text.includes(SECRETS.victim)],
    ['bash_other_session', () => result('bash_other_session').text.includes(SECRETS.other)],
    ['bash_write_outside', () => existsSync(join(targets.outsideDir, `pwned-${tag}`))],
    ['bash_daemons', () => survivors.setsid.length + survivors.nohup.length > 0],
    ['bash_timeout_daemon', () => survivors.timedOut.length > 0],
  ])('%s: contained with bubblewrap, documented without', (id, escaped) => {
    expect(escaped()).toBe(outcome(id) === 'escapes');
  });

  // Skipped unconfined: there `kill -9 <worker>` would end the worker, so the script leaves it out.
  (mode === 'bwrap' ? test : test.skip)('commands cannot signal the worker (bubblewrap)', () => {
    expect(result('bash_kill_worker').text).toMatch(/kill exit 1/);
    expect(result('bash_timeout_daemon').text).toMatch(/timed out/i);
  });

  /** Resolves once `predicate` holds for the processes of `sleeps`, polled (at most `limitMs`). */
  async function sleepsWhere(
    sleeps: number[],
    predicate: (running: boolean[]) => boolean,
    limitMs = 10_000,
  ): Promise<boolean[]> {
    const until = Date.now() + limitMs;
    for (;;) {
      const running = sleeps.map((sleep) => processesMatching(`sleep ${sleep}`).length > 0);
      if (predicate(running) || Date.now() > until) return running;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A session whose command starts a setsid daemon, a nohup one and a foreground sleep; resolves once all three run. */
  async function sessionWithDaemons(): Promise<{ handle: Awaited<ReturnType<Harness['start']>>; sleeps: number[] }> {
    const base = 4_000_000 + Math.floor(Math.random() * 900_000);
    const sleeps = [base, base + 1, base + 2];
    harness.fake.handler = byTurn([
      reply([
        toolUse('Bash', {
          command: `setsid sleep ${sleeps[0]} >/dev/null 2>&1 </dev/null & nohup sleep ${sleeps[1]} >/dev/null 2>&1 & sleep ${sleeps[2]}`,
        }),
      ]),
    ]);
    const handle = await harness.start({ prompt: 'start daemons', workdir: makeRepo({}) });
    await sleepsWhere(sleeps, (running) => running.every(Boolean));
    return { handle, sleeps };
  }

  test('an interrupted call leaves no process behind (unconfined: the setsid daemon escapes)', async () => {
    const { handle, sleeps } = await sessionWithDaemons();
    await handle.executeUpdate('interrupt', { args: [] });
    const running = await sleepsWhere(sleeps, (now) => now.every((alive) => !alive), 5_000);
    killSleeps(sleeps);
    expect(running).toEqual([mode === 'none', false, false]);
  });

  // Last: it kills this describe's worker.
  test('a call of a killed worker leaves no process behind (unconfined: the setsid daemon escapes)', async () => {
    const { sleeps } = await sessionWithDaemons();
    worker.kill('SIGKILL');
    const running = await sleepsWhere(sleeps, (now) => now.every((alive) => !alive), 5_000);
    killSleeps(sleeps);
    expect(running).toEqual([mode === 'none', false, false]);
  });

  test('what an unconfined host lets through is what the README says', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    for (const attempt of attempts) {
      const row = `| ${attempt.what} | ${attempt.outcome.bwrap} | ${attempt.outcome.none} |`;
      expect(readme).toContain(row);
    }
  });
});
