import { lastLine, maskSecrets, shownLine } from '../../../src/activities/shown-text';

describe('what a running call shows outside the session', () => {
  test('the last line with something on it, without terminal escapes, cut', () => {
    expect(lastLine('step 1\nstep 2\n\n', 200)).toBe('step 2');
    expect(lastLine('\x1b[32mok\x1b[0m 12 tests\r\n', 200)).toBe('ok 12 tests');
    expect(lastLine('progress 10%\rprogress 90%', 200)).toBe('progress 90%');
    expect(lastLine('\x1b]0;window title\x07built\x1b[2K\n', 200)).toBe('built');
    expect(lastLine('   \n', 200)).toBeUndefined();
    expect(lastLine('x'.repeat(500), 200)).toBe(`${'x'.repeat(199)}…`);
  });

  test('a command as one line: whitespace runs one space, control characters gone, cut', () => {
    expect(shownLine('cd app &&\n  npm test\t-- --ci', 120)).toBe('cd app && npm test -- --ci');
    expect(shownLine('echo \x07bell\x08', 120)).toBe('echo bell');
    expect(shownLine('a'.repeat(130), 120)).toHaveLength(120);
  });

  test('credentials of well-known shapes are masked, the rest of the line kept', () => {
    expect(maskSecrets('curl -H "Authorization: Bearer eyJhbGciOi.abc" https://api.example.com')).toBe(
      'curl -H "Authorization: Bearer ***" https://api.example.com',
    );
    expect(maskSecrets('GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh pr')).toBe('GITHUB_TOKEN=*** gh pr');
    expect(maskSecrets('export ANTHROPIC_API_KEY=sk-ant-api03-abcdefgh')).toBe('export ANTHROPIC_API_KEY=***');
    expect(maskSecrets('using sk-ant-api03-abcdefghijk')).toBe('using sk-ant-***');
    expect(maskSecrets('git clone https://ci:s3cr3t@git.example.com/')).toBe(
      'git clone https://ci:***@git.example.com/',
    );
    expect(maskSecrets('{"password": "hunter22"} AKIAABCDEFGHIJKLMNOP')).toBe('{"password": "***"} AKIA***');
    expect(maskSecrets('mysql --password=hunter2 -u root')).toBe('mysql --password=*** -u root');
    // Words that only look like the names are left alone.
    const harmless = 'input tokens: 1234, task-runner-abcdefgh passed';
    expect(maskSecrets(harmless)).toBe(harmless);
  });
});
