/**
 * A session's skills, prepared once at its start: the repository's `.claude/skills` (used only
 * when the repository is trusted, like its hooks and agents) and the worker's `AGENT_SKILLS_DIR`
 * (the worker's wins a name, as a user's skill wins over a project's in Claude Code). Bodies and
 * the list are stored: the session's history holds one reference.
 */
import type { PreparedSkills, SkillEntry } from '../../shared/skills';
import type { ContentStore } from '../../store/content-store';
import { realDirectory } from '../../workdir/real-directory';
import { Workdir } from '../../workdir/workdir';
import { type ParsedSkill, readSkillFiles, SKILLS_DIR } from './skill-files';

export interface SkillSources {
  store: ContentStore;
  /** The workdir's real path. */
  workdir: string;
  /** The repository may define skills (trustRepoHooks or AGENT_TRUST_REPO_HOOKS=1). */
  trusted: boolean;
  /** `AGENT_SKILLS_DIR`. */
  skillsDir?: string;
}

/** The skills, stored, and what the transcript says of them; with them, the entries the system prompt lists. */
export async function prepareSkills(sources: SkillSources): Promise<PreparedSkills & { entries: SkillEntry[] }> {
  const repo = await Workdir.using(sources.workdir, (opened) => readSkillFiles(opened, SKILLS_DIR));
  const worker = await workerSkills(sources.skillsDir);
  const skipped = [
    ...(sources.trusted ? repo.problems : repo.files.map((file) => `${file} (not trusted)`)),
    ...worker.problems,
  ];
  const chosen = new Map<string, { skill: ParsedSkill; baseDir?: string; source: string }>();
  if (sources.trusted)
    for (const skill of repo.skills)
      chosen.set(skill.name, {
        skill,
        baseDir: `${SKILLS_DIR}/${skill.dir}`,
        source: `${SKILLS_DIR}/${skill.dir}/SKILL.md`,
      });
  for (const skill of worker.skills)
    chosen.set(skill.name, { skill, source: `AGENT_SKILLS_DIR/${skill.dir}/SKILL.md` });
  const entries: SkillEntry[] = [];
  for (const { skill, baseDir, source } of chosen.values())
    entries.push({
      name: skill.name,
      description: skill.description,
      bodyRef: await sources.store.put(skill.body),
      ...(baseDir ? { baseDir } : {}),
      source,
    });
  return {
    entries,
    ...(entries.length
      ? { skillsRef: await sources.store.put(JSON.stringify(entries)), skills: entries.map((entry) => entry.name) }
      : {}),
    ...(skipped.length ? { skippedSkills: skipped } : {}),
  };
}

/** The worker's skills: its own directory, read as a workdir is (no link out, no FIFO). */
async function workerSkills(directory: string | undefined) {
  const real = directory ? await realDirectory(directory) : undefined;
  if (!real || !('path' in real)) return { skills: [], files: [], problems: [] };
  return Workdir.using(real.path, (opened) => readSkillFiles(opened, '', 'AGENT_SKILLS_DIR'));
}

/** A session's skills, from their stored list. */
export async function loadSkills(store: ContentStore, skillsRef: string): Promise<SkillEntry[]> {
  return JSON.parse(await store.get(skillsRef)) as SkillEntry[];
}
