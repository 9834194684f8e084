import { formatEntry } from '../../../src/cli/print-transcript';

describe("the session's setup as `durable-agent run` prints it", () => {
  test('an unconfined session and skipped repository hooks are said out loud', () => {
    const line = formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'none', skippedRepoHooks: ['.agent/settings.json (1 stop hook)'] });
    expect(line).toContain("sandbox: none: this session's commands run unconfined, with the worker's privileges");
    expect(line).toContain('repository hooks found and not run (not trusted: input trustRepoHooks, or the worker\'s AGENT_TRUST_REPO_HOOKS=1): .agent/settings.json (1 stop hook)');
  });

  test('a sandboxed session without repository hooks prints nothing', () => {
    expect(formatEntry({ type: 'session', turn: 0, workdir: '/repo', sandbox: 'bwrap' })).toBeUndefined();
  });
});
