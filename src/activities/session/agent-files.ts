/**
 * Sub-agent types defined by the repository: `.claude/agents/*.md`, Claude Code's format — YAML
 * front matter (`name`, `description`, optional `tools`, `disallowedTools`, `model`, `maxTurns`,
 * `permissionMode`, `initialPrompt`, `isolation: worktree`; Claude Code's other fields are accepted and ignored) over
 * the agent's system prompt. Read once when the session starts, and only when the repository is trusted (its types
 * can grant Bash): a file the model writes later defines nothing for its own session.
 */
import { load } from 'js-yaml';
import type { Workdir } from '../../workdir/workdir';
import { unreadableReason } from '../../workdir/workdir-refusal';
import {
  AGENT_NAME_PATTERN,
  AGENT_PERMISSION_MODES,
  type AgentPermissionMode,
  type AgentType,
} from '../../shared/sub-agents';
import { TOOL_NAMES } from '../../shared/tool-names';

export const AGENTS_DIR = '.claude/agents';
/** A definition longer than this is not read (it would crowd every sub-agent's context). */
const AGENT_FILE_MAX_CHARS = 50_000;

export interface RepoAgents {
  types: AgentType[];
  /** Files of the directory, read or not: what the transcript says was found. */
  files: string[];
  /** Files that define no usable type, and why. */
  problems: string[];
}

/** Bytes of an agent file read at most: a character is up to four, and a longer file is refused anyway. */
const AGENT_FILE_MAX_BYTES = AGENT_FILE_MAX_CHARS * 4 + 1;

export async function readRepoAgents(workdir: Workdir): Promise<RepoAgents> {
  const names = listNames(workdir, AGENTS_DIR);
  const files = names.filter((name) => name.endsWith('.md')).sort();
  const types: AgentType[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const path = `${AGENTS_DIR}/${file}`;
    // A regular file inside the workdir only: a FIFO planted here is never opened.
    const head = await workdir.readHead(path, AGENT_FILE_MAX_BYTES).catch((error: Error) => error);
    const parsed =
      head instanceof Error
        ? `cannot be read: ${unreadableReason(head)}`
        : head === undefined
          ? 'cannot be read'
          : parseAgentFile(head.data.toString('utf8'), path);
    if (typeof parsed === 'string') problems.push(`${path}: ${parsed}`);
    else types.push(parsed);
  }
  return { types, files: files.map((file) => `${AGENTS_DIR}/${file}`), problems };
}

/** The names in a directory of the workdir; none when it is missing or not a directory. */
function listNames(workdir: Workdir, directory: string): string[] {
  try {
    return workdir.list(directory).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** One agent file, or what is wrong with it. */
export function parseAgentFile(text: string, source: string): AgentType | string {
  if (text.length > AGENT_FILE_MAX_CHARS) return `longer than ${AGENT_FILE_MAX_CHARS} characters`;
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return 'no front matter (--- name, description … ---)';
  let front: unknown;
  try {
    front = load(match[1]!);
  } catch {
    return 'its front matter is not valid YAML';
  }
  if (!front || typeof front !== 'object') return 'its front matter is not a mapping';
  const fields = front as Record<string, unknown>;
  const { name, description, model } = fields;
  if (typeof name !== 'string' || !AGENT_NAME_PATTERN.test(name))
    return 'name: lowercase letters, digits, - and _ required';
  if (typeof description !== 'string' || !description.trim()) return 'description: required';
  const prompt = match[2]!.trim();
  if (!prompt) return 'no instructions below the front matter';
  const tools = toolList(fields.tools);
  if (tools === null) return 'tools: a list or a comma-separated string';
  const disallowedTools = toolList(fields.disallowedTools);
  if (disallowedTools === null) return 'disallowedTools: a list or a comma-separated string';
  const limits = agentLimits(fields);
  if (typeof limits === 'string') return limits;
  return {
    name,
    description: description.trim(),
    prompt,
    // Tools of Claude Code this agent does not have (WebFetch…) are left out, not an error.
    ...(tools ? { tools: tools.filter(isToolName) } : {}),
    ...(disallowedTools?.length ? { disallowedTools } : {}),
    ...(typeof model === 'string' && model.trim() ? { model: model.trim() } : {}),
    ...limits,
    source,
  };
}

/** A list of tool names, as a YAML list or a comma-separated string; `null` when it is neither. */
function toolList(value: unknown): string[] | undefined | null {
  if (value === undefined || value === null) return undefined;
  const listed = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.map(String) : null;
  return listed && listed.map((tool) => tool.trim()).filter(Boolean);
}

const isToolName = (tool: string): tool is (typeof TOOL_NAMES)[number] =>
  (TOOL_NAMES as readonly string[]).includes(tool);

/** `maxTurns`, `permissionMode`, `initialPrompt` and `isolation`, or what is wrong with one of them. */
function agentLimits(
  fields: Record<string, unknown>,
):
  { maxTurns?: number; permissionMode?: AgentPermissionMode; initialPrompt?: string; isolation?: 'worktree' } | string {
  const { maxTurns, permissionMode, initialPrompt, isolation } = fields;
  if (isolation !== undefined && isolation !== 'worktree') return 'isolation: worktree (or none)';
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && (maxTurns as number) > 0))
    return 'maxTurns: a positive whole number';
  if (permissionMode !== undefined && !(AGENT_PERMISSION_MODES as readonly unknown[]).includes(permissionMode))
    return `permissionMode: one of ${AGENT_PERMISSION_MODES.join(', ')}`;
  if (initialPrompt !== undefined && typeof initialPrompt !== 'string') return 'initialPrompt: text';
  return {
    ...(maxTurns !== undefined ? { maxTurns: maxTurns as number } : {}),
    ...(permissionMode !== undefined ? { permissionMode: permissionMode as AgentPermissionMode } : {}),
    ...(typeof initialPrompt === 'string' && initialPrompt.trim() ? { initialPrompt: initialPrompt.trim() } : {}),
    ...(isolation === 'worktree' ? { isolation } : {}),
  };
}
