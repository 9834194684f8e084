/** A session's skills: the repository's when trusted, the worker's always, stored by reference. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSkills, prepareSkills } from '../../../../src/activities/session/session-skills';
import { LocalContentStore } from '../../../../src/store/content-store';
import { scratchDir } from '../../../support/paths';

function skill(root: string, dir: string, text: string) {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'SKILL.md'), text);
}

const workdir = scratchDir('skills-workdir');
const skillsDir = scratchDir('skills-worker');
skill(workdir, '.claude/skills/deploy', '---\nname: deploy\ndescription: Deploys\n---\nRun ./deploy.sh');
skill(workdir, '.claude/skills/lint', '---\nname: lint\ndescription: Repo lint\n---\nnpm run lint');
skill(skillsDir, 'lint', '---\nname: lint\ndescription: Worker lint\n---\nnpx eslint .');

test("trusted: the repository's skills and the worker's (the worker's wins a name), bodies stored", async () => {
  const store = new LocalContentStore(scratchDir('skills-store'));
  const prepared = await prepareSkills({ store, workdir, trusted: true, skillsDir });
  expect(prepared.skills).toEqual(['deploy', 'lint']);
  expect(prepared.skippedSkills).toBeUndefined();
  const entries = await loadSkills(store, prepared.skillsRef!);
  expect(entries).toEqual([
    expect.objectContaining({
      name: 'deploy',
      baseDir: '.claude/skills/deploy',
      source: '.claude/skills/deploy/SKILL.md',
    }),
    expect.objectContaining({ name: 'lint', description: 'Worker lint', source: 'AGENT_SKILLS_DIR/lint/SKILL.md' }),
  ]);
  expect(entries[1]!.baseDir).toBeUndefined();
  expect(await store.get(entries[0]!.bodyRef)).toBe('Run ./deploy.sh');
});

test("untrusted: the repository's are named as skipped", async () => {
  const store = new LocalContentStore(scratchDir('skills-store'));
  const prepared = await prepareSkills({ store, workdir, trusted: false });
  expect(prepared).toEqual({
    entries: [],
    skippedSkills: ['.claude/skills/deploy/SKILL.md (not trusted)', '.claude/skills/lint/SKILL.md (not trusted)'],
  });
});
