import { createContextActivities } from './context/prepare-context';
import { createStopHookActivities } from './hooks/stop-hooks';
import { createToolHookActivities } from './hooks/tool-hooks';
import type { CommandSandbox } from '../sandbox/command-sandbox';
import { type AnthropicSettings, ModelApi } from './model/anthropic';
import { PROCESS_MODEL_LIMITER } from './model/rate-limits';
import { createModelActivities, type WebOffer } from './model/call-model';
import { createCompactActivities } from './model/compact';
import { loadPriceTable } from './model/prices';
import { createToolSummaryActivities } from './model/tool-summary';
import { createMcpActivities } from './mcp/mcp-activities';
import { McpPackages, npmSettings } from '../sandbox/mcp-packages';
import { McpPool } from './mcp/mcp-pool';
import { createCloseSessionActivities } from './session/close-session';
import { createSessionActivities } from './session/prepare-session';
import { createProbeHostActivities } from './session/probe-host';
import { createWorkdirLeaseActivities } from './session/workdir-lease';
import { DEFAULT_WORKDIR_LEASE_MS } from '../shared/workdir-lease';
import type { Store } from '../store/open-store';
import { createToolActivities } from './tools/run-tool';
import { createRepositoryActivities, DEFAULT_CLONE_ROOT, DEFAULT_GIT_ROOT } from './repository/repository-activities';
import { setSnapshotMaxFileBytes } from '../snapshots/snapshot';
import { createWorkspaceActivities } from './workspace/workspace-activities';
import { createWorktreeActivities } from './workspace/worktrees';

export interface ActivityConfig {
  /** Where the commands of sessions run: resolved once at worker start (resolveSandbox). */
  sandbox: CommandSandbox;
  /** The store (AGENT_STORE) every worker of a queue shares: content, journal, snapshots. */
  store: Store;
  anthropic: AnthropicSettings;
  /** Model of sessions whose input names none. */
  defaultModel: string;
  /** Small model for side work (tool-batch summaries). */
  smallModel: string;
  /** `AGENT_WORKSPACE_ROOTS`: when any, a workdir must lie inside one of them. */
  workspaceRoots?: string[];
  /** `AGENT_TRUST_REPO_HOOKS=1`. */
  trustRepoHooks?: boolean;
  /** `AGENT_HOST_ID`: this worker's host, recorded by the sessions it prepares. */
  hostId?: string;
  /** `AGENT_INSTRUCTIONS_DIR`: the user's instruction files (AGENTS.md, CLAUDE.md) for every session. */
  instructionsDir?: string;
  /** `AGENT_SKILLS_DIR`: the worker's skills (`<name>/SKILL.md`) for every session. */
  skillsDir?: string;
  /** `AGENT_GIT_CONFIG`: the global git config of `repo` sessions' clone and push. */
  gitConfig?: string;
  /** `AGENT_SNAPSHOT_MAX_FILE_BYTES`: the size over which snapshots record a file by its metadata. */
  snapshotMaxFileBytes?: number;
  /** `AGENT_MODEL_CALLS_IN_FLIGHT`: the worker process's cap on model requests in flight (issue 26). */
  modelCallsInFlight?: number;
  /** Where `repo` sessions' git directories go (default DEFAULT_GIT_ROOT). */
  gitRoot?: string;
  /** `AGENT_MCP_PACKAGE_DIR`: the packages of npx MCP servers, installed once for every session. */
  mcpPackageDir?: string;
  /** `AGENT_WORKDIR_LEASE_MS`: how long a workdir lease lasts without a renewal. */
  workdirLeaseMs?: number;
  /** `AGENT_WEB_FETCH=1`: WebFetch (and WebSearch) offered to sessions that have network. */
  webFetch?: boolean;
  /** `AGENT_WEB_SEARCH=0`: WebSearch not offered even with AGENT_WEB_FETCH=1. */
  webSearch?: boolean;
  /** `AGENT_PRICES_FILE`: model prices over the built-in table, read once here (a bad file stops the worker). */
  pricesFile?: string;
}

/** All activities, wired to their dependencies (dependency injection as in Temporal's samples). */
export function createActivities(config: ActivityConfig) {
  const { content: store, journal, directory: contentDir } = config.store;
  applyProcessSettings(config);
  // `repo` sessions' git directories: like the store, never part of a workdir.
  const gitRoot = config.gitRoot ?? DEFAULT_GIT_ROOT;
  const api = ModelApi.fromSettings(config.anthropic);
  // What each model call costs: read once, so every call of this worker is priced alike.
  const prices = loadPriceTable(config.pricesFile);
  const { apiKey, authToken } = config.anthropic;
  // The MCP connections of the sessions this worker serves (closed with their session).
  const packages = config.mcpPackageDir
    ? new McpPackages(config.mcpPackageDir, config.sandbox, npmSettings(process.env))
    : undefined;
  const mcpPool = new McpPool(config.sandbox, undefined, packages);
  // AGENT_WEB_FETCH=1: the web tools fetch under each session's network rules and ask the small model.
  const web = config.webFetch ? { web: { api, smallModel: config.smallModel, sandbox: config.sandbox } } : {};
  const leaseDependencies = {
    leases: config.store.leases,
    leaseMs: config.workdirLeaseMs ?? DEFAULT_WORKDIR_LEASE_MS,
    ...(config.hostId ? { hostId: config.hostId } : {}),
  };
  return {
    ...createSessionActivities({
      store,
      hasApiCredentials: () => Boolean(apiKey || authToken),
      defaultModel: config.defaultModel,
      contentDir,
      workspaceRoots: config.workspaceRoots ?? [],
      privateDirs: [gitRoot],
      trustRepoHooks: config.trustRepoHooks ?? false,
      sandbox: config.sandbox,
      ...(config.hostId ? { hostId: config.hostId } : {}),
      ...(config.instructionsDir ? { instructionsDir: config.instructionsDir } : {}),
      ...(config.skillsDir ? { skillsDir: config.skillsDir } : {}),
      leases: leaseDependencies,
    }),
    ...createModelActivities({ store, api, live: config.store.live, ...webOffer(config), prices }),
    ...createContextActivities({ store }),
    ...createCompactActivities({ store, api, prices }),
    ...createToolActivities({ store, journal, sandbox: config.sandbox, live: config.store.live, mcpPool, ...web }),
    ...createStopHookActivities({ sandbox: config.sandbox, store, api, smallModel: config.smallModel }),
    ...createToolHookActivities({ sandbox: config.sandbox, store, api, smallModel: config.smallModel }),
    ...createToolSummaryActivities({ api, smallModel: config.smallModel }),
    ...createCloseSessionActivities({ journal, store, mcpPool, leases: config.store.leases }),
    ...createMcpActivities({ store, pool: mcpPool }),
    ...createProbeHostActivities(config.hostId ? { hostId: config.hostId } : {}),
    ...createWorkdirLeaseActivities(leaseDependencies),
    ...workspaceActivities(config, gitRoot),
    ...createRepositoryActivities({
      store,
      cloneRoot: cloneRootOf(config),
      gitRoot,
      ...(config.hostId ? { hostId: config.hostId } : {}),
      ...(config.gitConfig ? { gitConfig: config.gitConfig } : {}),
    }),
  };
}

/** Where `repo` sessions' clones and writing sub-agents' worktrees go. */
function cloneRootOf(config: ActivityConfig): string {
  return config.workspaceRoots?.[0] ?? DEFAULT_CLONE_ROOT;
}

/** The workspace's activities: snapshots, rewinds, forks, and writing sub-agents' worktrees (issue 27). */
function workspaceActivities(config: ActivityConfig, gitRoot: string) {
  const { content: store, journal, directory: contentDir } = config.store;
  const dependencies = {
    store,
    journal,
    contentDir,
    workspaceRoots: config.workspaceRoots ?? [],
    privateDirs: [gitRoot],
    ...(config.hostId ? { hostId: config.hostId } : {}),
  };
  return {
    ...createWorkspaceActivities(dependencies),
    ...createWorktreeActivities({ ...dependencies, cloneRoot: cloneRootOf(config) }),
  };
}

/** Settings that hold for the whole worker process: the snapshot size cap and the model calls in flight. */
function applyProcessSettings(config: ActivityConfig): void {
  if (config.snapshotMaxFileBytes) setSnapshotMaxFileBytes(config.snapshotMaxFileBytes);
  if (config.modelCallsInFlight) PROCESS_MODEL_LIMITER.maxInFlight = config.modelCallsInFlight;
}

/** The web tools the model activity offers: with AGENT_WEB_FETCH=1, to sessions whose commands have network here. */
function webOffer(config: ActivityConfig): { web?: WebOffer } {
  if (!config.webFetch) return {};
  return {
    web: {
      fetch: true,
      search: config.webSearch !== false,
      hasNetwork: (network) => config.sandbox.network(network === undefined ? {} : { network }).mode !== 'none',
    },
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
