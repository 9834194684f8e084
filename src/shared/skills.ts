/**
 * Skills, as Claude Code has them: a directory with a `SKILL.md` (YAML front matter `name`,
 * `description`, optional `allowed-tools`; the body is the instructions), from the repository's
 * `.claude/skills/` (only when it is trusted, like its hooks and agents) and the worker's
 * `AGENT_SKILLS_DIR`. The session lists them to the model by name and description; the `Skill`
 * tool loads one's instructions into the conversation. Pure data: imported by the workflow, the
 * activities and the CLI.
 */

/** A skill's name, as Claude Code allows it: lowercase letters, digits and hyphens, 64 at most. */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** One skill of a session, as stored (`skillsRef`: a JSON list of these). */
export interface SkillEntry {
  name: string;
  description: string;
  /** Its instructions (SKILL.md's body), stored. */
  bodyRef: string;
  /**
   * Its directory relative to the workdir (`.claude/skills/<dir>`), for a repository's skill
   * (its other files are the model's to Read); none for the worker's: only SKILL.md is loaded.
   */
  baseDir?: string;
  /** Where it came from: `.claude/skills/<dir>/SKILL.md` or `AGENT_SKILLS_DIR/<dir>/SKILL.md`. */
  source: string;
}

/** What `prepareSession` found of skills. */
export interface PreparedSkills {
  /** The session's skills (a stored SkillEntry[]); none: the session offers no Skill tool. */
  skillsRef?: string;
  /** Their names, for the transcript. */
  skills?: string[];
  /** Skill files not used, and why (the repository not trusted, or invalid): shown in the transcript. */
  skippedSkills?: string[];
}

/** The system prompt's list of skills, as Claude Code words its reminder. */
export function skillsSection(skills: readonly Pick<SkillEntry, 'name' | 'description'>[]): string {
  return [
    '# Skills',
    'The following skills are available for use with the Skill tool:',
    '',
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ].join('\n');
}
