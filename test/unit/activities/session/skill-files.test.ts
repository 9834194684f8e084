/** `<name>/SKILL.md` files as Claude Code writes them. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseSkillFile, readSkillFiles } from '../../../../src/activities/session/skill-files';
import { Workdir } from '../../../../src/workdir/workdir';
import { scratchDir } from '../../../support/paths';

test('front matter gives name and description; the body is the instructions', () => {
  expect(
    parseSkillFile(
      '---\nname: pdf\ndescription: Fills PDF forms\nallowed-tools: Read, Bash\n---\n# PDF\n\nUse pdftk.\n',
      'x',
    ),
  ).toEqual({ name: 'pdf', description: 'Fills PDF forms', body: '# PDF\n\nUse pdftk.', dir: 'x' });
});

test("the name defaults to the directory's, the description to the first paragraph", () => {
  expect(parseSkillFile('# Release notes\n\nWrite them.', 'release-notes')).toMatchObject({
    name: 'release-notes',
    description: 'Release notes',
  });
});

test('a file that defines no usable skill says why', () => {
  expect(parseSkillFile('---\nname: Bad Name\ndescription: d\n---\nbody', 'x')).toBe(
    'name: lowercase letters, digits and hyphens (64 at most)',
  );
  expect(parseSkillFile('---\nname: ok\ndescription: d\n---\n', 'x')).toBe('no instructions below the front matter');
  expect(parseSkillFile('---\nname: [unclosed\n---\nbody', 'x')).toBe('its front matter is not valid YAML');
  expect(parseSkillFile('x'.repeat(100_001), 'x')).toBe('longer than 100000 characters');
});

test("reads each directory's SKILL.md in order; a FIFO or a link leading out is never read", async () => {
  const root = scratchDir('skills');
  const outside = scratchDir('outside');
  writeFileSync(join(outside, 'SKILL.md'), '---\nname: leak\ndescription: d\n---\nsecret');
  for (const name of ['b', 'a', 'fifo', 'empty']) mkdirSync(join(root, '.claude', 'skills', name), { recursive: true });
  writeFileSync(join(root, '.claude/skills/b/SKILL.md'), '---\ndescription: B\n---\nDo b.');
  writeFileSync(join(root, '.claude/skills/a/SKILL.md'), '---\nname: Bad\n---\nx');
  execFileSync('mkfifo', [join(root, '.claude/skills/fifo/SKILL.md')]);
  symlinkSync(outside, join(root, '.claude/skills/out'));
  const found = await Workdir.using(root, (workdir) => readSkillFiles(workdir, '.claude/skills'));
  expect(found.skills.map((skill) => skill.name)).toEqual(['b']);
  expect(found.problems).toEqual([
    '.claude/skills/a/SKILL.md: name: lowercase letters, digits and hyphens (64 at most)',
    expect.stringMatching(/^\.claude\/skills\/fifo\/SKILL\.md: cannot be read/),
  ]);
  expect(JSON.stringify(found)).not.toContain('secret');
});
