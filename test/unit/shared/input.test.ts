import { checkAgentInput, utf8Bytes } from '../../../src/shared/input';
import { MAX_INLINE_PROMPT_BYTES } from '../../../src/shared/limits';
import { TOOL_NAMES } from '../../../src/shared/tool-names';

const REF = `sha256:${'ab'.repeat(32)}`;

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
        allowedTools: [...TOOL_NAMES],
        contextWindowTokens: undefined,
        fallbackModel: undefined,
        fallbackAfterOverloads: 3,
        stopHooks: [],
        tokenBudget: undefined,
        interactive: false,
        permissionMode: 'auto',
        permissionModeDefaulted: true,
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
    const check = checkAgentInput({
      prompt: 'p',
      repo: { url: 'file:///srv/git/app.git', ref: 'main' },
      hostLossTimeoutMs: 5_000,
    });
    expect(check.ok && check.input).toMatchObject({
      repo: { url: 'file:///srv/git/app.git', ref: 'main' },
      hostLossTimeoutMs: 5_000,
    });
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
    expect(check).toMatchObject({
      ok: true,
      input: {
        model: 'claude-opus-5-5',
        maxTurns: 7,
        maxOutputTokens: 1000,
        systemPrompt: 'Be brief.',
        allowedTools: ['Read', 'Grep'],
      },
    });
  });

  test('keeps the sandbox fields', () => {
    const check = checkAgentInput({
      prompt: 'p',
      workdir: '/w',
      sandboxEnv: { NODE_ENV: 'test' },
      network: false,
      trustRepoHooks: true,
    });
    expect(check).toMatchObject({
      ok: true,
      input: { sandboxEnv: { NODE_ENV: 'test' }, network: false, trustRepoHooks: true },
    });
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
    [
      { prompt: 'p', repo: { url: 'file:///r.git', ref: '--upload-pack=x' } },
      /repo\.ref: must be a branch, tag or commit/,
    ],
    [{ prompt: 'p', repo: { url: 'file:///r.git', branch: 'x' } }, /unknown field\(s\): repo.branch/],
    [{ prompt: 'p', workdir: '/w', hostLossTimeoutMs: 10 }, /hostLossTimeoutMs: /],
    [{ workdir: '/w' }, /prompt: required \(or promptRef/],
    [{ prompt: 'p', promptRef: REF, workdir: '/w' }, /promptRef: give prompt or promptRef, not both/],
    [{ promptRef: 'prompt.md', workdir: '/w' }, /promptRef: must be a content reference \(sha256:…\)/],
    [{ prompt: 'p', workdir: '/w', onBusyWorkdir: 'queue' }, /onBusyWorkdir: /],
  ])('rejects %j, naming the field', (raw, message) => {
    const check = checkAgentInput(raw);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(message);
  });

  const ref = (n: number) => `sha256:${String(n).padStart(64, '0')}`;
  const hash = (n: number) => String(n).padStart(64, 'a');
  test('fork.readState: relative paths beneath the workdir and sha256 hashes only', () => {
    const fork = {
      workflowId: 'w',
      turn: 2,
      snapshotRef: ref(1),
      conversationRef: null,
      messageCount: 0,
      pending: [],
      contextTokens: 0,
      endsWithUser: true,
    };
    const check = (readState: unknown) =>
      checkAgentInput({ prompt: 'go', workdir: '/fork', fork: { ...fork, readState } });
    expect(check({ 'src/a.ts': hash(1) }).ok).toBe(true);
    for (const path of ['/etc/passwd', '../up', 'a/../../b', 'a//b', './a', '', 'a\0b']) {
      expect(check({ [path]: hash(1) })).toMatchObject({
        ok: false,
        message: expect.stringContaining('relative to the workdir'),
      });
    }
    expect(check({ a: 'not-a-hash' })).toMatchObject({ ok: false, message: expect.stringContaining('sha256') });
    expect(check([hash(1)]).ok).toBe(false);
    expect(check(Object.fromEntries(Array.from({ length: 2_001 }, (_, n) => [`f${n}`, hash(1)]))).ok).toBe(false);
  });

  test('takes a prompt by reference instead of inline', () => {
    const check = checkAgentInput({ promptRef: REF, workdir: '/w' });
    expect(check.ok && check.input).toMatchObject({ promptRef: REF, workdir: '/w' });
    expect(check.ok && 'prompt' in check.input).toBe(false);
  });

  test('refuses an inline prompt over the limit, naming promptRef, and takes one at the limit', () => {
    const atLimit = 'x'.repeat(MAX_INLINE_PROMPT_BYTES);
    expect(checkAgentInput({ prompt: atLimit, workdir: '/w' }).ok).toBe(true);
    const check = checkAgentInput({ prompt: `${atLimit}y`, workdir: '/w' });
    expect(check).toEqual({
      ok: false,
      message: expect.stringContaining('prompt: 65 KB is over the 64 KB an inline prompt may have'),
    });
    expect(!check.ok && check.message).toContain('{"promptRef":"sha256:…"}');
    expect(!check.ok && check.message).toContain('durable-agent store-prompt <file>');
    // Counted in UTF-8 bytes, as Temporal counts payloads: 30,000 three-byte characters are 90,000 bytes.
    expect(checkAgentInput({ prompt: '€'.repeat(30_000), workdir: '/w' }).ok).toBe(false);
    // A caller that stores long prompts itself asks without the limit.
    expect(checkAgentInput({ prompt: `${atLimit}y`, workdir: '/w' }, { inlinePromptLimit: false }).ok).toBe(true);
  });

  test('counts UTF-8 bytes', () => {
    expect(utf8Bytes('a')).toBe(1);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('€')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
    expect(utf8Bytes('a€😀')).toBe(Buffer.byteLength('a€😀'));
  });
});

describe('outputFormat', () => {
  const base = { prompt: 'p', workdir: '/repo' };
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };

  test('Claude Code’s json_schema format is taken as is', () => {
    const check = checkAgentInput({ ...base, outputFormat: { type: 'json_schema', schema } });
    expect(check.ok && check.input.outputFormat).toEqual({ type: 'json_schema', schema });
    const without = checkAgentInput(base);
    expect(without.ok && 'outputFormat' in without.input).toBe(false);
  });

  test('other formats, a root that is not an object and huge schemas are clear errors', () => {
    const refused = (outputFormat: unknown) => {
      const check = checkAgentInput({ ...base, outputFormat });
      return check.ok ? 'accepted' : check.message;
    };
    expect(refused({ type: 'text' })).toMatch(/outputFormat/);
    expect(refused({ type: 'json_schema', schema: { type: 'array' } })).toMatch(/must describe an object/);
    expect(refused({ type: 'json_schema', schema: 'x' })).toMatch(/outputFormat\.schema/);
    const huge = { type: 'object', description: 'x'.repeat(70_000) };
    expect(refused({ type: 'json_schema', schema: huge })).toMatch(/at most 64000 characters/);
    expect(refused({ type: 'json_schema', schema, extra: 1 })).toMatch(/outputFormat/);
  });
});
