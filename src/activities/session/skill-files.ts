/**
 * Skills read when a session starts: the `<name>/SKILL.md` files of a directory — the
 * repository's `.claude/skills` (through the workdir's descriptor, like its agents) or the
 * worker's `AGENT_SKILLS_DIR` (opened the same way: a link leading out or a FIFO is refused).
 * Each body is stored; the session keeps references only.
 */
import { load } from 'js-yaml';
import type { Workdir } from '../../workdir/workdir';
import { unreadableReason } from '../../workdir/workdir-refusal';
import { SKILL_NAME_PATTERN } from '../../shared/skills';

export const SKILLS_DIR = '.claude/skills';
/** A SKILL.md longer than this is not read. */
const SKILL_FILE_MAX_CHARS = 100_000;
/** Skills of one directory at most (each costs a line of every request). */
const MAX_SKILLS = 100;

export interface ParsedSkill {
  name: string;
  description: string;
  body: string;
  /** Its directory's name under the skills directory. */
  dir: string;
}

export interface SkillFiles {
  skills: ParsedSkill[];
  /** The SKILL.md files found, read or not. */
  files: string[];
  /** Files that define no usable skill, and why. */
  problems: string[];
}

/** The skills of `directory` (relative to `root`): each subdirectory's SKILL.md, in name order. */
export async function readSkillFiles(root: Workdir, directory: string, shownAs = directory): Promise<SkillFiles> {
  const dirs = listDirectories(root, directory).sort().slice(0, MAX_SKILLS);
  const skills: ParsedSkill[] = [];
  const files: string[] = [];
  const problems: string[] = [];
  for (const dir of dirs) {
    const path = directory ? `${directory}/${dir}/SKILL.md` : `${dir}/SKILL.md`;
    const shown = `${shownAs}/${dir}/SKILL.md`;
    const head = await root.readHead(path, SKILL_FILE_MAX_CHARS * 4 + 1).catch((error: Error) => error);
    if (head === undefined) continue;
    files.push(shown);
    const parsed =
      head instanceof Error
        ? `cannot be read: ${unreadableReason(head)}`
        : parseSkillFile(head.data.toString('utf8'), dir);
    if (typeof parsed === 'string') problems.push(`${shown}: ${parsed}`);
    else if (skills.some((skill) => skill.name === parsed.name))
      problems.push(`${shown}: a second skill ${parsed.name}`);
    else skills.push(parsed);
  }
  return { skills, files, problems };
}

/** The subdirectories of a directory; none when it is missing. Links are not followed. */
function listDirectories(root: Workdir, directory: string): string[] {
  try {
    return root
      .list(directory)
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** One SKILL.md, or what is wrong with it. `name` defaults to its directory's, `description` to the body's first paragraph. */
export function parseSkillFile(text: string, dir: string): ParsedSkill | string {
  if (text.length > SKILL_FILE_MAX_CHARS) return `longer than ${SKILL_FILE_MAX_CHARS} characters`;
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  let front: unknown = {};
  if (match) {
    try {
      front = load(match[1]!) ?? {};
    } catch {
      return 'its front matter is not valid YAML';
    }
    if (typeof front !== 'object') return 'its front matter is not a mapping';
  }
  const body = (match ? match[2]! : text).trim();
  if (!body) return 'no instructions below the front matter';
  const { name = dir, description } = front as Record<string, unknown>;
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name))
    return 'name: lowercase letters, digits and hyphens (64 at most)';
  const said = typeof description === 'string' && description.trim() ? description.trim() : firstParagraph(body);
  return { name, description: said.replace(/\s+/g, ' ').slice(0, 1024), body, dir };
}

function firstParagraph(body: string): string {
  return (
    body
      .split(/\r?\n\s*\r?\n/)
      .map((part) => part.replace(/^#+\s*/, '').trim())
      .find(Boolean) ?? ''
  );
}
