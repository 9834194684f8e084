/**
 * The typed search attributes a session keeps up to date, in one place for the workflow (which
 * upserts them), the worker and the dev server (which register them) and the CLI (which lists
 * by them): `temporal workflow list --query "AgentStatus='waiting_approval'"`.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const AGENT_TURN = defineSearchAttributeKey('AgentTurn', SearchAttributeType.INT);
export const AGENT_STATUS = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
export const AGENT_LAST_TRANSITION = defineSearchAttributeKey('AgentLastTransition', SearchAttributeType.KEYWORD);
/** Set on a fork: the workflow id it was forked from (`AgentForkedFrom='<id>'` lists a session's forks). */
export const AGENT_FORKED_FROM = defineSearchAttributeKey('AgentForkedFrom', SearchAttributeType.KEYWORD);

/** The worker host (`AGENT_HOST_ID`) that holds the session's workspace: `AgentHost='build-7'`. */
export const AGENT_HOST = defineSearchAttributeKey('AgentHost', SearchAttributeType.KEYWORD);

/**
 * Issue 26: what the session has spent so far in USD, its sub-agents included (`usage.costUsd`):
 * `temporal workflow list --query "AgentCostUsd > 5"`. Set once a priced call was made.
 */
export const AGENT_COST_USD = defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE);
/** Issue 26: set while a session waits out a rate limit (`AgentRateLimitedUntil > '…'`), removed after. */
export const AGENT_RATE_LIMITED_UNTIL = defineSearchAttributeKey('AgentRateLimitedUntil', SearchAttributeType.DATETIME);

type AgentAttributeKey =
  | typeof AGENT_TURN
  | typeof AGENT_STATUS
  | typeof AGENT_LAST_TRANSITION
  | typeof AGENT_FORKED_FROM
  | typeof AGENT_HOST
  | typeof AGENT_COST_USD
  | typeof AGENT_RATE_LIMITED_UNTIL;

export const AGENT_SEARCH_ATTRIBUTES: readonly AgentAttributeKey[] = [
  AGENT_TURN,
  AGENT_STATUS,
  AGENT_LAST_TRANSITION,
  AGENT_FORKED_FROM,
  AGENT_HOST,
  AGENT_COST_USD,
  AGENT_RATE_LIMITED_UNTIL,
];

/** The type as the Temporal CLI spells it: `temporal server start-dev --search-attribute AgentTurn=Int`. */
export function cliTypeName(key: AgentAttributeKey): 'Int' | 'Keyword' | 'Double' | 'Datetime' {
  if (key.type === SearchAttributeType.DOUBLE) return 'Double';
  if (key.type === SearchAttributeType.DATETIME) return 'Datetime';
  return key.type === SearchAttributeType.INT ? 'Int' : 'Keyword';
}
