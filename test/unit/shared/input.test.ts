import { checkAgentInput } from '../../../src/shared/input';

describe('checkAgentInput', () => {
  test('fills the defaults', () => {
    expect(checkAgentInput({ prompt: 'Rename parseConfig', workdir: '/abs/repo' })).toEqual({
      ok: true,
      input: {
        prompt: 'Rename parseConfig',
        workdir: '/abs/repo',
        model: undefined,
        maxTurns: 500,
        maxOutputTokens: 8192,
        systemPrompt: undefined,
        allowedTools: ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'TodoWrite', 'Task'],
        contextWindowTokens: undefined,
        fallbackModel: undefined,
        fallbackAfterOverloads: 3,
        stopHooks: [],
        tokenBudget: undefined,
        interactive: false,
        permissionMode: 'auto',
        allowRules: [],
        approvalTimeoutMs: 3_600_000,
        toolSummaries: true,
        continueAsNewAfterTurns: undefined,
        sandboxEnv: undefined,
        network: true,
        trustRepoHooks: false,
        hostLossTimeoutMs: 120_000,
        onBusyWorkdir: 'wait',
        maxParallelAgents: 4,
        resume: undefined,
      },
    });
  });

  test('takes onBusyWorkdir "fail"', () => {
    const check = checkAgentInput({ prompt: 'p', workdir: '/w', onBusyWorkdir: 'fail' });
    expect(check.ok && check.input.onBusyWorkdir).toBe('fail');
  });

  test('takes a repository instead of a workdir', () => {
    const check = checkAgentInput({ prompt: 'p', repo: { url: 'file:///srv/git/app.git', ref: 'main' }, hostLossTimeoutMs: 5_000 });
    expect(check.ok && check.input).toMatchObject({ repo: { url: 'file:///srv/git/app.git', ref: 'main' }, hostLossTimeoutMs: 5_000 });
    expect(check.ok && 'workdir' in check.input).toBe(false);
  });

  test('keeps every optional field', () => {
    const check = checkAgentInput({
      prompt: 'p',
      workdir: '/w',
      model: 'claude-opus-5-5',
      maxTurns: 7,
      maxOutputTokens: 1000,
      systemPrompt: 'Be brief.',
      allowedTools: ['Read', 'Grep'],
    });
    expect(check).toMatchObject({ ok: true, input: { model: 'claude-opus-5-5', maxTurns: 7, maxOutputTokens: 1000, systemPrompt: 'Be brief.', allowedTools: ['Read', 'Grep'] } });
  });

  test('keeps the sandbox fields', () => {
    const check = checkAgentInput({ prompt: 'p', workdir: '/w', sandboxEnv: { NODE_ENV: 'test' }, network: false, trustRepoHooks: true });
    expect(check).toMatchObject({ ok: true, input: { sandboxEnv: { NODE_ENV: 'test' }, network: false, trustRepoHooks: true } });
  });

  test.each([
    [undefined, /one JSON object/],
    ['just a string', /one JSON object/],
    [[{ prompt: 'p', workdir: '/w' }], /one JSON object/],
    [{ workdir: '/w' }, /prompt: required/],
    [{ prompt: 'p' }, /workdir: required/],
    [{ prompt: '  ', workdir: '/w' }, /prompt: must be a non-empty string/],
    [{ prompt: 'p', workdir: 'repo' }, /workdir: must be an absolute path/],
    [{ prompt: 'p', workdir: '/w', maxTurns: 0 }, /maxTurns: /],
    [{ prompt: 'p', workdir: '/w', maxOutputTokens: 1.5 }, /maxOutputTokens: /],
    [{ prompt: 'p', workdir: '/w', allowedTools: ['Read', 'Browse'] }, /allowedTools\.1: /],
    [{ prompt: 'p', workdir: '/w', promt: 'typo' }, /unknown field\(s\): promt/],
    [{ prompt: 'p', workdir: '/w', sandboxEnv: { 'NODE ENV': 'x' } }, /sandboxEnv\.NODE ENV: must be a variable name/],
    [{ prompt: 'p', workdir: '/w', sandboxEnv: { CI: 1 } }, /sandboxEnv\.CI: /],
    [{ prompt: 'p', workdir: '/w', network: 'off' }, /network: /],
    [{ prompt: 'p', workdir: '/w', trustRepoHooks: 'yes' }, /trustRepoHooks: /],
    [{ prompt: 'p', workdir: '/w', repo: { url: 'file:///r.git' } }, /repo: give workdir or repo, not both/],
    [{ prompt: 'p', repo: { url: '' } }, /repo\.url: must be a git URL/],
    [{ prompt: 'p', repo: { url: 'file:///r.git', ref: '--upload-pack=x' } }, /repo\.ref: must be a branch, tag or commit/],
    [{ prompt: 'p', repo: { url: 'file:///r.git', branch: 'x' } }, /unknown field\(s\): repo.branch/],
    [{ prompt: 'p', workdir: '/w', hostLossTimeoutMs: 10 }, /hostLossTimeoutMs: /],
    [{ prompt: 'p', workdir: '/w', onBusyWorkdir: 'queue' }, /onBusyWorkdir: /],
  ])('rejects %j, naming the field', (raw, message) => {
    const check = checkAgentInput(raw);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(message);
  });
});
