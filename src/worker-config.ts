import { delimiter, resolve } from 'node:path';
import { parseAllowedDomainsList } from './sandbox/allowed-domains';
import type { CgroupSettings } from './sandbox/cgroup';
import type { SandboxSettings } from './sandbox/command-sandbox';
import { byteSize, defaultLimits, limitsFromEnvironment, type SandboxLimits } from './sandbox/sandbox-limits';

/** Who a root worker's sandboxes run as when root owns the workdir (AGENT_SANDBOX_UID). */
export const DEFAULT_SANDBOX_UID = 1000;
/** memory.max of one command in AGENT_SANDBOX_CGROUP, unless AGENT_SANDBOX_CGROUP_MEMORY says otherwise. */
const DEFAULT_CGROUP_MEMORY = 8 * 1024 ** 3;
import { type StoreSetting, storeSetting } from './store/store-setting';
import { DEFAULT_TASK_QUEUE } from './shared/contract';
import { DEFAULT_MODEL, DEFAULT_SMALL_MODEL } from './shared/models';
import { MIN_WORKDIR_LEASE_MS } from './shared/workdir-lease';
import { type ConnectionSecurity, temporalSettings } from './temporal/temporal-connection';
import { type EncryptionKeys, encryptionKeys } from './encryption/keys';
import { type DeploymentSetting, deploymentSetting } from './temporal/deployment';

/** Everything the worker reads from its environment, in one place (see docs/environment.md). */
export interface WorkerConfig {
  address: string;
  namespace: string;
  /** TLS, API key and gRPC metadata of the connection (TEMPORAL_TLS*, TEMPORAL_API_KEY, a profile). */
  connection?: ConnectionSecurity;
  /** AGENT_ENCRYPTION_KEY(_FILE): payloads and the store encrypted; undefined: off. */
  encryption?: EncryptionKeys;
  /** AGENT_WORKER_DEPLOYMENT (+ AGENT_BUILD_ID): Worker Versioning, sessions pinned to their build; undefined: off. */
  deployment?: DeploymentSetting;
  taskQueue: string;
  /** `AGENT_STORE` (or `AGENT_CONTENT_DIR`): content, journal, snapshots, External Storage. */
  store: StoreSetting;
  defaultModel: string;
  smallModel: string;
  anthropic: { apiKey?: string; authToken?: string; baseURL?: string };
  sandbox: SandboxSettings;
  /** `AGENT_WORKSPACE_ROOTS`: when set, a session's workdir must lie inside one of these. */
  workspaceRoots: string[];
  /** `AGENT_TRUST_REPO_HOOKS=1`: hooks from a repository's settings run without input `trustRepoHooks`. */
  trustRepoHooks: boolean;
  /**
   * `AGENT_HOST_ID`: this worker also polls `<AGENT_TASK_QUEUE>@<host id>`, and the sessions it
   * prepares send their workspace activities there. Unset: one host, everything on the shared queue.
   */
  hostId?: string;
  /** `AGENT_INSTRUCTIONS_DIR`: a directory whose AGENTS.md and CLAUDE.md go into every session's system prompt. */
  instructionsDir?: string;
  /** `AGENT_SKILLS_DIR`: a directory of skills (`<name>/SKILL.md`) every session has (docs/skills.md). */
  skillsDir?: string;
  /**
   * `AGENT_GIT_CONFIG`: a git config file that the clone and push of `repo` sessions read as
   * their global config (credential helpers, `url.<base>.insteadOf`); no other git config is read.
   */
  gitConfig?: string;
  /** `AGENT_SNAPSHOT_MAX_FILE_BYTES`: files larger than this are recorded by metadata in snapshots (64 MiB by default). */
  snapshotMaxFileBytes?: number;
  /** `AGENT_MODEL_CALLS_IN_FLIGHT`: model requests this worker process sends at once (unset: no cap; issue 26). */
  modelCallsInFlight?: number;
  /** Where `repo` sessions' git directories go: ~/.durable-agent/git, no variable (the tests give their own). */
  gitRoot?: string;
  /**
   * `AGENT_MCP_PACKAGE_DIR`: where the worker installs the packages of `npx` stdio MCP servers
   * once for all its sessions (see src/activities/mcp/mcp-packages.ts); undefined: off.
   */
  mcpPackageDir?: string;
  /** `AGENT_WORKDIR_LEASE_MS`: a workdir lease not renewed for this long may be taken over (3 minutes by default). */
  workdirLeaseMs?: number;
  /** `AGENT_WEB_FETCH=1`: WebFetch and WebSearch are offered to sessions that have network. */
  webFetch?: boolean;
  /** `AGENT_WEB_SEARCH=0`: WebSearch is not offered (an endpoint without the server-side web search tool). */
  webSearch?: boolean;
  /** `AGENT_STICKY_QUEUE_TIMEOUT_MS`: how long a workflow task waits for this worker on its sticky queue (STICKY_QUEUE_TIMEOUT_MS). */
  stickyQueueTimeoutMs?: number;
  /** `AGENT_PRICES_FILE`: a JSON file of model prices over the built-in table (src/activities/model/prices.ts). */
  pricesFile?: string;
}

export {
  DEFAULT_TEMPORAL_ADDRESS,
  DEFAULT_TEMPORAL_NAMESPACE,
  temporalSettings,
  type TemporalSettings,
} from './temporal/temporal-connection';

const read = (environment: NodeJS.ProcessEnv, name: string) => environment[name]?.trim() || undefined;

export function workerConfigFromEnvironment(environment: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const { address, namespace, addressConfigured: _configured, ...connection } = temporalSettings(environment);
  return {
    address,
    namespace,
    connection,
    ...withEncryption(encryptionKeys(environment)),
    ...withDeployment(deploymentSetting(environment)),
    taskQueue: read(environment, 'AGENT_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    store: storeSetting(environment),
    defaultModel: read(environment, 'AGENT_MODEL') ?? DEFAULT_MODEL,
    smallModel: read(environment, 'AGENT_SMALL_MODEL') ?? DEFAULT_SMALL_MODEL,
    anthropic: {
      apiKey: read(environment, 'ANTHROPIC_API_KEY'),
      authToken: read(environment, 'ANTHROPIC_AUTH_TOKEN'),
      baseURL: read(environment, 'ANTHROPIC_BASE_URL'),
    },
    sandbox: sandboxSettings(environment),
    workspaceRoots: (read(environment, 'AGENT_WORKSPACE_ROOTS') ?? '').split(delimiter).filter(Boolean),
    trustRepoHooks: read(environment, 'AGENT_TRUST_REPO_HOOKS') === '1',
    ...hostSetting(read(environment, 'AGENT_HOST_ID')),
    ...withInstructionsDir(read(environment, 'AGENT_INSTRUCTIONS_DIR')),
    ...withSkillsDir(read(environment, 'AGENT_SKILLS_DIR')),
    ...withGitConfig(read(environment, 'AGENT_GIT_CONFIG')),
    ...snapshotLimit(read(environment, 'AGENT_SNAPSHOT_MAX_FILE_BYTES')),
    ...inFlightCap(modelCallsInFlight(read(environment, 'AGENT_MODEL_CALLS_IN_FLIGHT'))),
    ...mcpPackageDir(environment),
    ...workdirLease(read(environment, 'AGENT_WORKDIR_LEASE_MS')),
    ...stickyQueueTimeout(read(environment, 'AGENT_STICKY_QUEUE_TIMEOUT_MS')),
    ...(read(environment, 'AGENT_WEB_FETCH') === '1' ? { webFetch: true } : {}),
    ...(read(environment, 'AGENT_WEB_SEARCH') === '0' ? { webSearch: false } : {}),
    ...(read(environment, 'AGENT_PRICES_FILE') ? { pricesFile: read(environment, 'AGENT_PRICES_FILE') } : {}),
  };
}

/**
 * `AGENT_MCP_PACKAGE_DIR` (`off`: none). By default a directory of the worker's own outside any
 * workdir, which the sandboxes' users can reach (they bind its packages read-only): for a root
 * worker, whose home they cannot enter, under /var/cache.
 */
export function mcpPackageDir(
  environment: NodeJS.ProcessEnv,
  uid = process.getuid?.() ?? -1,
): { mcpPackageDir?: string } {
  const value = read(environment, 'AGENT_MCP_PACKAGE_DIR');
  if (value === 'off') return {};
  if (value) return { mcpPackageDir: resolve(value) };
  if (uid === 0) return { mcpPackageDir: '/var/cache/durable-agent/mcp-packages' };
  const home = read(environment, 'HOME');
  return home ? { mcpPackageDir: resolve(home, '.cache', 'durable-agent', 'mcp-packages') } : {};
}

/**
 * Host queues are opt-in: on one host they would only cost time (an activity on another queue
 * than its workflow's is not dispatched eagerly: about 50 ms more per tool call on a dev server).
 */
function hostSetting(value: string | undefined): { hostId?: string } {
  return value ? { hostId: hostIdentity(value) } : {};
}

/** A host id becomes part of a task queue name: letters, digits, `.`, `_`, `-` only. */
export function hostIdentity(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(value))
    throw new Error(`AGENT_HOST_ID=${value}: use letters, digits, '.', '_' and '-' (at most 63)`);
  return value;
}

/**
 * `AGENT_SANDBOX` (auto | bwrap | none), `AGENT_SANDBOX_PASS_ENV` (names, comma-separated),
 * `AGENT_SANDBOX_NETWORK` (on | off), `AGENT_SANDBOX_ALLOW_HOST_NETWORK` (1),
 * `AGENT_SANDBOX_ALLOWED_DOMAINS` (comma-separated), `AGENT_SANDBOX_UID`, the limits
 * (`AGENT_SANDBOX_MAX_*`) and `AGENT_SANDBOX_CGROUP` (+ `AGENT_SANDBOX_CGROUP_MEMORY`).
 */
export function sandboxSettings(environment: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const mode = read(environment, 'AGENT_SANDBOX') ?? 'auto';
  if (mode !== 'auto' && mode !== 'bwrap' && mode !== 'none')
    throw new Error(`AGENT_SANDBOX=${mode}: use auto, bwrap or none`);
  const network = read(environment, 'AGENT_SANDBOX_NETWORK') ?? 'on';
  if (network !== 'on' && network !== 'off') throw new Error(`AGENT_SANDBOX_NETWORK=${network}: use on or off`);
  const allowHost = read(environment, 'AGENT_SANDBOX_ALLOW_HOST_NETWORK') ?? '0';
  if (allowHost !== '0' && allowHost !== '1')
    throw new Error(`AGENT_SANDBOX_ALLOW_HOST_NETWORK=${allowHost}: use 1 (or leave it unset)`);
  const passEnv = (read(environment, 'AGENT_SANDBOX_PASS_ENV') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const domains = read(environment, 'AGENT_SANDBOX_ALLOWED_DOMAINS');
  const limits = limitsFromEnvironment(environment);
  return {
    mode,
    passEnv,
    network: network === 'on',
    allowHostNetwork: allowHost === '1',
    ...(domains ? { allowedDomains: parseAllowedDomainsList(domains, 'AGENT_SANDBOX_ALLOWED_DOMAINS') } : {}),
    sandboxUid: sandboxUid(read(environment, 'AGENT_SANDBOX_UID')),
    limits,
    ...cgroupSetting(environment, limits),
  };
}

/** `AGENT_SNAPSHOT_MAX_FILE_BYTES`: bytes, or `64m`, `1g`. */
/** `AGENT_MODEL_CALLS_IN_FLIGHT`: a positive integer, or unset (no cap). */
function modelCallsInFlight(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`AGENT_MODEL_CALLS_IN_FLIGHT=${value}: use a positive integer`);
  }
  return count;
}

function inFlightCap(count: number | undefined): { modelCallsInFlight?: number } {
  return count === undefined ? {} : { modelCallsInFlight: count };
}

function snapshotLimit(value: string | undefined): { snapshotMaxFileBytes?: number } {
  if (value === undefined) return {};
  const bytes = byteSize(value);
  if (!bytes) throw new Error(`AGENT_SNAPSHOT_MAX_FILE_BYTES=${value}: a number of bytes (64m, 1g, 67108864)`);
  return { snapshotMaxFileBytes: bytes };
}

/** `AGENT_WORKDIR_LEASE_MS`: milliseconds, at least MIN_WORKDIR_LEASE_MS. */
function workdirLease(value: string | undefined): { workdirLeaseMs?: number } {
  if (value === undefined) return {};
  if (!/^\d+$/.test(value) || Number(value) < MIN_WORKDIR_LEASE_MS)
    throw new Error(`AGENT_WORKDIR_LEASE_MS=${value}: milliseconds, at least ${MIN_WORKDIR_LEASE_MS}`);
  return { workdirLeaseMs: Number(value) };
}

/** `AGENT_STICKY_QUEUE_TIMEOUT_MS`: milliseconds, at least 100 (Temporal's floor is a few ms; below this only timeouts result). */
function stickyQueueTimeout(value: string | undefined): { stickyQueueTimeoutMs?: number } {
  if (value === undefined) return {};
  if (!/^\d+$/.test(value) || Number(value) < 100)
    throw new Error(`AGENT_STICKY_QUEUE_TIMEOUT_MS=${value}: milliseconds, at least 100`);
  return { stickyQueueTimeoutMs: Number(value) };
}

/** `AGENT_SANDBOX_UID`: 1000 unless set; a number (0 keeps a root worker's sandboxes mapped to root). */
function sandboxUid(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SANDBOX_UID;
  if (!/^\d+$/.test(value) || Number(value) > 2 ** 31)
    throw new Error(`AGENT_SANDBOX_UID=${value}: a user id (a number)`);
  return Number(value);
}

/** `AGENT_SANDBOX_CGROUP` (a delegated cgroup v2 directory) and `AGENT_SANDBOX_CGROUP_MEMORY` (memory.max of one command). */
function cgroupSetting(environment: NodeJS.ProcessEnv, limits: SandboxLimits): { cgroup?: CgroupSettings } {
  const path = read(environment, 'AGENT_SANDBOX_CGROUP');
  if (!path) return {};
  const memory = read(environment, 'AGENT_SANDBOX_CGROUP_MEMORY');
  const memoryMax = memory === undefined ? DEFAULT_CGROUP_MEMORY : byteSize(memory);
  if (!memoryMax) throw new Error(`AGENT_SANDBOX_CGROUP_MEMORY=${memory}: a number of bytes (8g, 512m)`);
  return { cgroup: { path: resolve(path), memoryMax, pidsMax: limits.processes ?? defaultLimits().processes! } };
}

export function hasApiCredentials(config: WorkerConfig): boolean {
  return Boolean(config.anthropic.apiKey || config.anthropic.authToken);
}

export const MISSING_API_KEY_MESSAGE =
  'ANTHROPIC_API_KEY is not set. The worker calls the model with it; set it in the environment ' +
  '(ANTHROPIC_BASE_URL points at any Anthropic-compatible endpoint).';

const withInstructionsDir = (directory: string | undefined) =>
  directory ? { instructionsDir: resolve(directory) } : {};
const withSkillsDir = (directory: string | undefined) => (directory ? { skillsDir: resolve(directory) } : {});
const withGitConfig = (file: string | undefined) => (file ? { gitConfig: resolve(file) } : {});
const withEncryption = (encryption: EncryptionKeys | undefined) => (encryption ? { encryption } : {});
const withDeployment = (deployment: DeploymentSetting | undefined) => (deployment ? { deployment } : {});
