import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  instructionsSection,
  nestedInstructions,
  rootInstructionFiles,
} from '../../../../src/activities/session/instructions';
import { INSTRUCTION_FILE_MAX_CHARS } from '../../../../src/shared/limits';

function dir(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'instructions-')));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

test("the user's files, then the workdir root's, each once (CLAUDE.md linked to AGENTS.md)", async () => {
  const user = dir({ 'CLAUDE.md': 'Answer in English.' });
  const workdir = dir({ 'AGENTS.md': 'Run npm test before you finish.', 'sub/CLAUDE.md': 'nested' });
  symlinkSync(join(workdir, 'AGENTS.md'), join(workdir, 'CLAUDE.md'));
  const files = await rootInstructionFiles(workdir, user);
  expect(files.map((file) => file.path)).toEqual([join(user, 'CLAUDE.md'), join(workdir, 'AGENTS.md')]);
  const section = instructionsSection(files)!;
  expect(section).toContain(
    `Contents of ${join(user, 'CLAUDE.md')} (user's private global instructions for all projects):\n\nAnswer in English.`,
  );
  expect(section).toContain(
    `Contents of ${join(workdir, 'AGENTS.md')} (project instructions, checked into the codebase):\n\nRun npm test before you finish.`,
  );
  expect(section).not.toContain('nested');
});

test('none: no section', async () => {
  expect(instructionsSection(await rootInstructionFiles(dir({}), undefined))).toBeUndefined();
});

test('a file too long is cut with a note, and so is the section beyond its budget', async () => {
  const workdir = dir({ 'AGENTS.md': 'a'.repeat(INSTRUCTION_FILE_MAX_CHARS + 10), 'CLAUDE.md': 'b'.repeat(100) });
  const files = await rootInstructionFiles(workdir, undefined);
  expect(files[0]!.text.length).toBe(INSTRUCTION_FILE_MAX_CHARS);
  expect(instructionsSection(files)).toContain(
    `[… cut: the file has ${INSTRUCTION_FILE_MAX_CHARS + 10} characters, the first ${INSTRUCTION_FILE_MAX_CHARS} are shown; Read ${join(workdir, 'AGENTS.md')} for the rest]`,
  );
  const section = instructionsSection(files, INSTRUCTION_FILE_MAX_CHARS + 40)!;
  expect(section).toContain(`[… cut: the file has 100 characters, the first 40 are shown;`);
});

test('a cut user file does not point the model at a Read it cannot make', async () => {
  const user = dir({ 'CLAUDE.md': 'u'.repeat(INSTRUCTION_FILE_MAX_CHARS + 1) });
  const section = instructionsSection(await rootInstructionFiles(dir({}), user))!;
  expect(section).toContain(
    `[… cut: the file has ${INSTRUCTION_FILE_MAX_CHARS + 1} characters, the first ${INSTRUCTION_FILE_MAX_CHARS} are shown]`,
  );
});

test('a symlink out of the directory is not followed', async () => {
  const secret = dir({ 'secret.txt': 'API_KEY=sk-live' });
  const workdir = dir({});
  symlinkSync(join(secret, 'secret.txt'), join(workdir, 'CLAUDE.md'));
  expect(await rootInstructionFiles(workdir, undefined)).toEqual([]);
});

test('nested files: those between the root and the file read, not shown yet', async () => {
  const workdir = dir({
    'CLAUDE.md': 'root',
    'packages/api/CLAUDE.md': 'api rules',
    'packages/api/src/a.ts': '',
    'packages/AGENTS.md': 'packages rules',
    'b.ts': '',
  });
  expect(await nestedInstructions(workdir, join(workdir, 'b.ts'), [])).toBeUndefined();
  const first = (await nestedInstructions(workdir, join(workdir, 'packages/api/src/a.ts'), []))!;
  expect(first.dirs).toEqual(['packages', 'packages/api']);
  expect(first.reminder).toMatch(
    /^<system-reminder>\nContents of .*packages\/AGENTS\.md \(project instructions for packages\/, checked into the codebase\):\n\npackages rules\n\nContents of .*packages\/api\/CLAUDE\.md/,
  );
  expect(first.reminder).not.toContain('root');
  expect((await nestedInstructions(workdir, join(workdir, 'packages/api/src/a.ts'), ['packages']))!.dirs).toEqual([
    'packages/api',
  ]);
  expect(
    await nestedInstructions(workdir, join(workdir, 'packages/api/src/a.ts'), ['packages', 'packages/api']),
  ).toBeUndefined();
});
