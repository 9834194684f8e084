import { platform, release } from 'node:os';
import { ApplicationFailure } from '@temporalio/common';
import type { PrepareSessionInput, PrepareSessionOutput } from '../../shared/activity-io';
import { ErrorType } from '../../shared/errors';
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, CHARS_PER_TOKEN } from '../../shared/limits';
import type { McpPrepared } from '../../shared/mcp';
import type { PreparedNetwork } from '../../shared/sandbox';
import type { AgentType } from '../../shared/sub-agents';
import { readRepoHooks, type RepoHooks } from '../hooks/settings';
import { formatAllowedDomain } from '../../sandbox/allowed-domains';
import type { CommandSandbox } from '../../sandbox/command-sandbox';
import type { SessionNetwork } from '../../sandbox/session-network';
import { realDirectory, realOrSame } from '../../workdir/real-directory';
import { Workdir } from '../../workdir/workdir';
import { readRepoAgents } from './agent-files';
import { subAgentsSection } from './sub-agents-prompt';
import { readRepoMcp } from '../mcp/mcp-json';
import { type ContentStore, storeText } from '../../store/content-store';
import { TOOLS } from '../tools/registry';
import { type InstructionFile, instructionsSection, rootInstructionFiles } from './instructions';
import { workdirProblem } from './workdir-check';
import { leaseKey, takeLease, type WorkdirLeaseDependencies } from './workdir-lease';

export interface SessionActivityDependencies {
  store: ContentStore;
  /** Whether the worker has credentials for the model API (checked, never read into history). */
  hasApiCredentials: () => boolean;
  /** `AGENT_MODEL`, or the model table's default. */
  defaultModel: string;
  /** A file store's directory: never a workdir, nor inside one (none for PostgreSQL). */
  contentDir?: string;
  /** `AGENT_WORKSPACE_ROOTS`: when any, a workdir must lie inside one of them. */
  workspaceRoots: readonly string[];
  /** Directories of the worker's own that are never a workdir (the git directories of `repo` sessions). */
  privateDirs?: readonly string[];
  /** `AGENT_TRUST_REPO_HOOKS=1`: a repository's hooks run without input `trustRepoHooks`. */
  trustRepoHooks: boolean;
  /** Where this worker runs commands (`state.sandbox`), and the network it gives a session's commands. */
  sandbox: Pick<CommandSandbox, 'kind' | 'network'>;
  /** This worker's host (`AGENT_HOST_ID`), recorded as the session's host. */
  hostId?: string;
  /** `AGENT_INSTRUCTIONS_DIR`: the user's AGENTS.md and CLAUDE.md, for every session's system prompt. */
  instructionsDir?: string;
  /** Workdir leases: a new `workdir` session's is taken here, once its workdir is known to be one. */
  leases?: Pick<WorkdirLeaseDependencies, 'leases' | 'leaseMs' | 'describe'>;
}

/** The session's network as the transcript shows it (a root worker's or an unconfined one's warnings included). */
function preparedNetwork(network: SessionNetwork): PreparedNetwork {
  return {
    mode: network.mode,
    ...(network.mode === 'filtered' ? { allowedDomains: network.allowedDomains.map(formatAllowedDomain) } : {}),
    ...(network.warnings.length ? { warnings: network.warnings } : {}),
  };
}

/** What the transcript lists as found and not run: hook files when untrusted, and files that could not be read either way. */
const skippedHooks = (hooks: RepoHooks, trusted: boolean) => [...(trusted ? [] : hooks.found), ...hooks.unreadable];

export function createSessionActivities(dependencies: SessionActivityDependencies) {
  return {
    /**
     * Checks what only the worker host can check (the workdir, the API key), then stores the
     * system prompt and the user's prompt. Failures here are final: retrying would not help.
     */
    prepareSession: (input: PrepareSessionInput): Promise<PrepareSessionOutput> => prepareSession(dependencies, input),
  };
}

async function prepareSession(
  dependencies: SessionActivityDependencies,
  input: PrepareSessionInput,
): Promise<PrepareSessionOutput> {
  const { store, hasApiCredentials, defaultModel } = dependencies;
  if (!hasApiCredentials()) {
    throw ApplicationFailure.nonRetryable(
      'ANTHROPIC_API_KEY is not set in the worker environment. Set it where `npm run worker` runs (never in workflow input).',
      ErrorType.MissingApiKey,
    );
  }
  const workdir = await checkedWorkdir(dependencies, input.workdir);
  // Busy or not, the rest is prepared: the workflow waits for the lease, or fails, as its input says.
  const workdirLeaseTaken =
    input.workdirLease && dependencies.leases
      ? await takeLease(dependencies.leases, leaseKey(dependencies.hostId, workdir), input.workdirLease.holder, true)
      : undefined;
  const trusted = input.trustRepoHooks === true || dependencies.trustRepoHooks;
  const repo = await readRepository(workdir, input, trusted);
  const instructions = await rootInstructionFiles(workdir, dependencies.instructionsDir);
  const system = buildSystemPrompt({
    ...input,
    workdir,
    agentTypes: [...(input.agentTypes ?? []), ...repo.usableAgents],
    instructions: instructionsSection(instructions),
  });
  const systemRef = await store.put(system);
  const overheadChars = system.length + JSON.stringify(TOOLS.apiDefinitions(input.allowedTools)).length;
  return {
    workdir,
    ...repositoryFindings(repo, instructions, trusted),
    ...skippedAlso(input, repo, trusted),
    sandbox: dependencies.sandbox.kind,
    network: preparedNetwork(dependencies.sandbox.network(input.sandbox)),
    ...(dependencies.hostId ? { host: dependencies.hostId } : {}),
    model: input.model ?? defaultModel,
    systemRef,
    prompt: await storeText(store, await taskText(store, input)),
    overheadTokens: Math.ceil(overheadChars / CHARS_PER_TOKEN),
    ...(workdirLeaseTaken ? { workdirLeaseTaken } : {}),
  };
}

/** The workdir's real path, once it is known to be a directory a session may work in. */
async function checkedWorkdir(dependencies: SessionActivityDependencies, given: string): Promise<string> {
  const real = await realDirectory(given);
  if ('problem' in real)
    throw ApplicationFailure.nonRetryable(
      `workdir: ${given} ${real.problem} on the worker host`,
      ErrorType.InvalidWorkdir,
    );
  const workdir = real.path;
  const problem = workdirProblem(workdir, {
    ...(dependencies.contentDir ? { contentDir: await realOrSame(dependencies.contentDir) } : {}),
    roots: await Promise.all(dependencies.workspaceRoots.map(realOrSame)),
    privateDirs: await Promise.all((dependencies.privateDirs ?? []).map(realOrSame)),
  });
  if (problem)
    throw ApplicationFailure.nonRetryable(
      `workdir: ${problem}; choose the repository's own directory`,
      ErrorType.InvalidWorkdir,
    );
  return workdir;
}

/** The repository's own hooks, sub-agent types and MCP servers, and which of its agent types may be used. */
interface RepositoryFiles {
  repoHooks: RepoHooks;
  repoMcp: Pick<McpPrepared, 'repoMcpServers' | 'skippedMcpJson'>;
  usableAgents: AgentType[];
  skippedAgents: string[];
}

async function readRepository(workdir: string, input: PrepareSessionInput, trusted: boolean): Promise<RepositoryFiles> {
  // The repository's own files, read beneath the workdir's descriptor (FIFOs never opened, links out refused).
  const { repoHooks, repoAgents, repoMcp } = await Workdir.using(workdir, async (opened) => ({
    repoHooks: await readRepoHooks(opened),
    // Sub-agent types of the repository: only for sessions that can start sub-agents.
    repoAgents: input.allowedTools.includes('Task') ? await readRepoAgents(opened) : undefined,
    repoMcp: await readRepoMcp(opened, trusted),
  }));
  const usableAgents = trusted ? (repoAgents?.types ?? []) : [];
  const skippedAgents = repoAgents
    ? trusted
      ? repoAgents.problems
      : repoAgents.files.map((file) => `${file} (not trusted)`)
    : [];
  return { repoHooks, repoMcp, usableAgents, skippedAgents };
}

/** The input's hooks that are not run lead the list of what is not used (`skippedSettings`). */
function skippedAlso(input: PrepareSessionInput, repo: RepositoryFiles, trusted: boolean) {
  if (!input.skippedInputHooks?.length) return {};
  return { skippedSettings: [...input.skippedInputHooks, ...(trusted ? repo.repoHooks.skipped : [])] };
}

/** What the transcript shows of the repository's files: what is used, what was found and not used. */
function repositoryFindings(
  { repoHooks, repoMcp, usableAgents, skippedAgents }: RepositoryFiles,
  instructions: InstructionFile[],
  trusted: boolean,
) {
  return {
    ...(trusted && repoHooks.hooks.length ? { settingsStopHooks: repoHooks.hooks } : {}),
    ...(trusted && repoHooks.toolHooks ? { settingsToolHooks: repoHooks.toolHooks } : {}),
    // Untrusted files are only noted as found; in trusted ones, what cannot run is listed.
    ...(trusted && repoHooks.skipped.length ? { skippedSettings: repoHooks.skipped } : {}),
    ...(instructions.length ? { instructionFiles: instructions.map((file) => file.path) } : {}),
    ...(skippedHooks(repoHooks, trusted).length ? { skippedRepoHooks: skippedHooks(repoHooks, trusted) } : {}),
    ...(usableAgents.length ? { repoAgents: usableAgents } : {}),
    ...(skippedAgents.length ? { skippedRepoAgents: skippedAgents } : {}),
    // `.mcp.json`: its servers when trusted, like the hooks; else a note that it was skipped.
    ...repoMcp,
  };
}

/**
 * The task: inline, or input `promptRef` loaded from the store (its own reference again once
 * stored, so a long prompt is written once). A reference the store lacks fails the session.
 */
async function taskText(store: ContentStore, input: PrepareSessionInput): Promise<string> {
  if (input.promptRef === undefined) return input.prompt ?? '';
  if (!(await store.has(input.promptRef))) {
    throw ApplicationFailure.nonRetryable(
      `promptRef: ${input.promptRef} is not in the store the workers use (AGENT_STORE): store the prompt with ` +
        '`durable-agent store-prompt <file>` where AGENT_STORE names the same store',
      ErrorType.InvalidWorkflowInput,
    );
  }
  const task = (await store.get(input.promptRef)).trim();
  if (!task) {
    throw ApplicationFailure.nonRetryable(
      `promptRef: ${input.promptRef} is an empty prompt`,
      ErrorType.InvalidWorkflowInput,
    );
  }
  return input.promptIntro ? `${input.promptIntro}\n\n${task}` : task;
}

export function buildSystemPrompt(input: {
  workdir: string;
  startedAt: string;
  allowedTools: string[];
  systemPromptAppend?: string;
  agentTypes?: { name: string; description: string }[];
  /** The instruction files' section (AGENTS.md, CLAUDE.md), when there are any. */
  instructions?: string;
}): string {
  const sections = [
    'You are a coding agent working in a software repository on behalf of a user. You run unattended: ' +
      'nobody answers questions mid-task, so make reasonable decisions, carry the task through to the end, ' +
      'and finish with a short account of what you changed and how you checked it.',
    [
      '# Environment',
      `- Working directory: ${input.workdir}`,
      `- Platform: ${platform()} ${release()}`,
      `- Session started: ${input.startedAt.slice(0, 10)}`,
      `- Tools: ${input.allowedTools.join(', ')}`,
    ].join('\n'),
    [
      '# Rules of the tools',
      '- Paths may be absolute or relative to the working directory; anything outside it is refused.',
      '- Read a file before you Edit or Write it; if it changed since, Read it again.',
      '- Edit replaces an exact, unique old_string (or every occurrence with replace_all).',
      `- Bash runs in the working directory without a terminal; timeout ${BASH_DEFAULT_TIMEOUT_MS / 1000} s by default, ${BASH_MAX_TIMEOUT_MS / 1000} s at most. Long output is cut in the middle.`,
      '- Prefer Glob and Grep to find files and code; Read, Glob and Grep calls in one response run in parallel.',
      '- A tool result with is_error explains what went wrong: fix the call rather than repeating it.',
      ...(input.allowedTools.includes('TodoWrite')
        ? [
            '- For a task of three steps or more, write the plan with TodoWrite first and keep it current: one item in progress, each marked completed when done.',
          ]
        : []),
    ].join('\n'),
    [
      '# How to work',
      '- Understand the code before you change it: search, read, then edit.',
      '- Keep changes focused on the task; follow the conventions of the code around them.',
      "- Verify your work with the repository's own tests or build when it has them.",
      '- Never read or print credentials.',
    ].join('\n'),
  ];
  if (input.allowedTools.includes('Task')) sections.push(subAgentsSection(input.agentTypes ?? []));
  if (input.instructions) sections.push(input.instructions);
  if (input.systemPromptAppend?.trim()) sections.push(input.systemPromptAppend.trim());
  return sections.join('\n\n');
}
