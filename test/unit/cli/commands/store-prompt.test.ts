import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '../../../support/paths';
import { cli, withUsage } from '../cli-output';

test.each([[[]], [['a.txt', 'b.txt']]])('store-prompt %j is a usage error (exit 2)', async (args) => {
  expect(await cli(['store-prompt', ...args])).toEqual({
    code: 2,
    stdout: '',
    stderr: withUsage('usage: durable-agent store-prompt <file | ->'),
  });
});

test('an empty file holds no prompt: one line, no usage (exit 2)', async () => {
  const file = join(scratchDir('store-prompt'), 'empty.txt');
  writeFileSync(file, '  \n');
  expect(await cli(['store-prompt', file])).toEqual({
    code: 2,
    stdout: '',
    stderr: `durable-agent: ${file} holds no prompt (it is empty)\n`,
  });
});

test('a prompt is stored in the file store: its reference on stdout, how to use it on stderr', async () => {
  const directory = scratchDir('store-prompt');
  const file = join(directory, 'prompt.txt');
  writeFileSync(file, 'Refactor the parser.\n');
  const result = await cli(['store-prompt', file], { AGENT_CONTENT_DIR: join(directory, 'content') });
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
  expect(result.stderr).toBe(
    `Stored 20 bytes; start a session with {"promptRef":"${result.stdout.trim()}", …} (workers need the same AGENT_STORE).\n`,
  );
});
