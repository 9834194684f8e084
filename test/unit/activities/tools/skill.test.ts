/** The Skill tool: loads a session's skill by name, with its arguments and where its files are. */
import { skillText, skillTool } from '../../../../src/activities/tools/skill';
import { TOOLS } from '../../../../src/activities/tools/registry';
import type { SkillEntry } from '../../../../src/shared/skills';
import { toolContext } from '../../../support/tool-context';

const deploy: SkillEntry = {
  name: 'deploy',
  description: 'Deploys',
  bodyRef: 'ref-deploy',
  baseDir: '.claude/skills/deploy',
  source: 's',
};
const bodies: Record<string, string> = { 'ref-deploy': 'Run ./deploy.sh $ARGUMENTS' };
const skills = { list: async () => [deploy], body: async (skill: SkillEntry) => bodies[skill.bodyRef]! };

test('loads the instructions, with the arguments filled in and the base directory', async () => {
  const context = { ...toolContext('/repo'), skills };
  expect(await skillTool.execute({ skill: 'deploy', args: 'staging' }, context)).toEqual({
    text: 'Base directory for this skill: /repo/.claude/skills/deploy\n\nRun ./deploy.sh staging',
  });
  // A leading slash, as in a slash command, names the same skill.
  expect((await skillTool.execute({ skill: '/deploy' }, context)).text).toContain('Run ./deploy.sh ');
});

test('an unknown skill is an error naming the known ones', async () => {
  await expect(skillTool.execute({ skill: 'nope' }, { ...toolContext('/repo'), skills })).rejects.toThrow(
    'Unknown skill: nope. Skills: deploy.',
  );
  await expect(skillTool.execute({ skill: 'nope' }, toolContext('/repo'))).rejects.toThrow(
    'This session has no skills.',
  );
});

test('arguments without $ARGUMENTS follow the instructions; a worker skill has no files to Read', () => {
  expect(skillText('Do it.', 'now', undefined)).toBe(
    'This skill has its instructions only (a skill of the worker: its other files are not readable here).\n\nDo it.\n\nARGUMENTS: now',
  );
});

test('the Skill tool is offered only to a session with skills', () => {
  const offer = { mcpResources: false, webFetch: false, webSearch: false };
  const names = (skills: boolean) => TOOLS.offeredNames(['Read', 'Skill'], { ...offer, skills });
  expect(names(false)).toEqual(['Read']);
  expect(names(true)).toEqual(['Read', 'Skill']);
});
