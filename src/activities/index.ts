import Anthropic from '@anthropic-ai/sdk';
import { join } from 'node:path';
import { LocalContentStore } from './content-store';
import { LocalEffectJournal } from './effect-journal';
import { createCompactActivities } from './compact';
import { createModelActivities } from './model';
import { createContextActivities } from './prepare-context';
import { createToolActivities } from './run-tool';
import { createStopHookActivities } from './stop-hooks';
import { createToolSummaryActivities } from './tool-summary';
import { DEFAULT_SMALL_MODEL } from '../shared/models';
import { createSessionActivities } from './session';

export interface ActivityConfig {
  /** Directory of the content store and the effect journal; shared by every worker of a queue. */
  contentDir: string;
  anthropic: { apiKey?: string; authToken?: string; baseURL?: string };
  /** Model of sessions whose input names none. */
  defaultModel: string;
  /** Small model for side work (tool-batch summaries). */
  smallModel?: string;
}

/** All activities, wired to their dependencies (dependency injection as in Temporal's samples). */
export function createActivities(config: ActivityConfig) {
  const store = new LocalContentStore(join(config.contentDir, 'objects'));
  const journal = new LocalEffectJournal(join(config.contentDir, 'journal'));
  const { apiKey, authToken, baseURL } = config.anthropic;
  // maxRetries 0: Temporal's retry policy owns retries, so every attempt shows in the UI.
  const createClient = () => new Anthropic({ apiKey: apiKey ?? null, authToken: authToken ?? null, baseURL, maxRetries: 0 });
  return {
    ...createSessionActivities({ store, hasApiCredentials: () => Boolean(apiKey || authToken), defaultModel: config.defaultModel }),
    ...createModelActivities({ store, createClient }),
    ...createContextActivities({ store }),
    ...createCompactActivities({ store, createClient }),
    ...createToolActivities({ store, journal }),
    ...createStopHookActivities(),
    ...createToolSummaryActivities({ createClient, smallModel: config.smallModel ?? DEFAULT_SMALL_MODEL }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
