/**
 * The session's permission mode and rules, as the tool turn asks them of each call: read here
 * and nowhere else, so the mode has one source (input `permissionMode`, input
 * `permissions.defaultMode`, a trusted repository's `defaultMode`, then `auto`).
 */
import type { PlannedToolUse } from '../../shared/activity-io';
import type { PermissionMode } from '../../shared/permission-modes';
import { patched } from '@temporalio/workflow';
import { hasWildcardStar, permissionRuleSet } from '../../shared/permissions';
import { ALLOW_RULE_WILDCARDS_PATCH } from '../core/features';
import type { AgentSession } from '../session/agent-session';
import { decide, type PermissionDecision, withHookDecision } from '../core/approval-rules';

export type PermissionSession = Pick<AgentSession, 'input' | 'prepared' | 'state' | 'permissionMode'>;

/** The mode the session's calls are decided in now: the one accessor, AgentSession.permissionMode(). */
export function currentPermissionMode(session: PermissionSession): PermissionMode {
  return session.permissionMode();
}

/** What the mode, the rules (input and settings) and the call's PreToolUse hooks decide of one call. */
export function permissionFor(
  session: PermissionSession,
  call: PlannedToolUse,
  hook: 'allow' | 'deny' | 'ask' | undefined,
): PermissionDecision {
  const mode = currentPermissionMode(session);
  const rules = permissionRuleSet(session.input, session.prepared.settingsPermissions);
  // Asked only where it matters: sessions recorded before read `*` in allowRules as a word.
  const literalStars = session.input.allowRules.some(hasWildcardStar) && !patched(ALLOW_RULE_WILDCARDS_PATCH);
  return withHookDecision(decide(mode, rules, call, session.state.workdir, literalStars), hook, mode, call);
}
