import { z } from 'zod';
import { defineTool, ToolError } from './tool';

/**
 * Skill, as Claude Code has it (`{skill, args?}`): loads a skill's instructions (its SKILL.md
 * body) into the conversation as this call's result, with the directory its other files are in
 * (a repository's skill: the model Reads them there). Offered only to sessions that have skills
 * (the system prompt lists them); the result comes from the stored copy read at the session's
 * start, so a SKILL.md changed since loads as it was. `allowed-tools` is not applied.
 */
export const skillTool = defineTool({
  name: 'Skill',
  description: [
    'Execute a skill within the main conversation.',
    '- Skills give you instructions for specialised tasks. The available skills are listed in the system prompt ("The following skills are available for use with the Skill tool").',
    "- When a task matches a skill's description, call this tool with its name first, before anything else for that task; then follow the instructions it returns.",
    '- skill: the name exactly as listed, e.g. "pdf". args: optional arguments for it.',
    '- Do not call it for a skill whose instructions are already in the conversation.',
  ].join('\n'),
  schema: z
    .object({
      skill: z.string().min(1).describe('The skill name. E.g., "commit", "review-pr", or "pdf"'),
      args: z.string().optional().describe('Optional arguments for the skill'),
    })
    .strict(),
  needsApproval: false,
  isConcurrencySafe: () => true,
  cancelsLaterCallsOnError: false,
  // An old one may be cleared from the context: the model can load the skill again.
  resultsClearable: true,
  readsFile: false,
  changesFiles: false,
  loadsSkill: true,
  offered: (offer) => offer.skills,
  labelsItself: true,
  subject: (input) => input.skill,
  summarize: (input) => `Skill ${input.skill}`,
  async execute(input, context) {
    const skills = (await context.skills?.list()) ?? [];
    const name = input.skill.replace(/^\//, '');
    const entry = skills.find((skill) => skill.name === name);
    if (!entry)
      throw new ToolError(
        skills.length
          ? `Unknown skill: ${name}. Skills: ${skills.map((skill) => skill.name).join(', ')}.`
          : 'This session has no skills.',
      );
    const body = await context.skills!.body(entry);
    return { text: skillText(body, input.args, entry.baseDir ? `${context.workdir}/${entry.baseDir}` : undefined) };
  },
});

/** What the model reads: where the skill's files are, then its instructions with `$ARGUMENTS` filled in (or after them). */
export function skillText(body: string, args: string | undefined, baseDir: string | undefined): string {
  const given = args?.trim() ?? '';
  const filled = body.includes('$ARGUMENTS') ? body.replaceAll('$ARGUMENTS', given) : body;
  const withArgs = given && !body.includes('$ARGUMENTS') ? `${filled}\n\nARGUMENTS: ${given}` : filled;
  const where = baseDir
    ? `Base directory for this skill: ${baseDir}`
    : 'This skill has its instructions only (a skill of the worker: its other files are not readable here).';
  return `${where}\n\n${withArgs}`;
}
