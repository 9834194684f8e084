import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS, DEFAULT_TEMPORAL_NAMESPACE } from './shared/constants';
import { DEFAULT_MODEL, DEFAULT_SMALL_MODEL } from './shared/models';

/** Everything the worker reads from its environment, in one place (see README "Configuration"). */
export interface WorkerConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  contentDir: string;
  defaultModel: string;
  smallModel: string;
  anthropic: { apiKey?: string; authToken?: string; baseURL?: string };
}

export function workerConfigFromEnvironment(environment: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const value = (name: string) => environment[name]?.trim() || undefined;
  return {
    address: value('TEMPORAL_ADDRESS') ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: value('TEMPORAL_NAMESPACE') ?? DEFAULT_TEMPORAL_NAMESPACE,
    taskQueue: value('AGENT_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    contentDir: value('AGENT_CONTENT_DIR') ?? join(homedir(), '.durable-agent', 'content'),
    defaultModel: value('AGENT_MODEL') ?? DEFAULT_MODEL,
    smallModel: value('AGENT_SMALL_MODEL') ?? DEFAULT_SMALL_MODEL,
    anthropic: {
      apiKey: value('ANTHROPIC_API_KEY'),
      authToken: value('ANTHROPIC_AUTH_TOKEN'),
      baseURL: value('ANTHROPIC_BASE_URL'),
    },
  };
}

export function hasApiCredentials(config: WorkerConfig): boolean {
  return Boolean(config.anthropic.apiKey || config.anthropic.authToken);
}

export const MISSING_API_KEY_MESSAGE =
  'ANTHROPIC_API_KEY is not set. The worker calls the model with it; set it in the environment ' +
  '(ANTHROPIC_BASE_URL points at any Anthropic-compatible endpoint).';
