/**
 * Which tool calls run, wait for a person or are refused: the session's permission mode, its
 * rules (allow, deny, ask in Claude Code's syntax, matched in permission-rules.ts) and what each
 * call's plan says about itself. Pure functions.
 *
 * Claude Code's order: a deny rule refuses, in every mode; an ask rule asks, even in
 * bypassPermissions; then the mode and the allow rules decide:
 * - `default`: calls that are not read-only (their plan says `needsApproval`) wait unless allowed;
 * - `acceptEdits`: as default, but file edits inside the workdir (`editsFiles`) go ahead;
 * - `plan`: only read-only calls run, every other one is refused;
 * - `bypassPermissions` (`auto`): nothing waits;
 * - `dontAsk`: whatever would wait is refused instead.
 * A plan that says no rule may approve it (`alwaysAsk`: a repository settings file) waits in every
 * mode that asks; in bypassPermissions it runs, and the tool itself refuses the change (nobody approved it).
 */
import type { PlannedToolUse } from '../../shared/activity-io';
import type { PermissionMode, PermissionModeName } from '../../shared/permission-modes';
import { permissionModeOf } from '../../shared/permission-modes';
import type { PermissionRuleSet, SettingsPermissions, SourcedRule } from '../../shared/permissions';
import { allowingRule, firstMatchingRule } from './permission-rules';
import { rulesOf } from './tool-rules';

export type PermissionDecision =
  | { behavior: 'allow' }
  /** `byRule`: an ask rule or a settings file asked, which a hook's allow does not skip. */
  | { behavior: 'ask'; reason: string; byRule?: true }
  /** `message`: the call's is_error result. */
  | { behavior: 'deny'; message: string };

const ALLOW: PermissionDecision = { behavior: 'allow' };

/**
 * What the mode and rules say of one call; `workdir` anchors the rules' relative paths.
 * `literalStars`: allow rules read as before Claude Code's wildcards (patch `allow-rule-wildcards`).
 */
export function decide(
  mode: PermissionMode,
  rules: PermissionRuleSet,
  call: PlannedToolUse,
  workdir: string,
  literalStars = false,
): PermissionDecision {
  // An invalid call runs into its own error result; nothing to ask about.
  if (!call.plan.ok) return ALLOW;
  const facts = rulesOf(call);
  const denied = firstMatchingRule(rules.deny, call, workdir);
  if (denied) return { behavior: 'deny', message: `${permissionTo(call)} has been denied by rule ${named(denied)}.` };
  if (mode === 'plan' && facts.needsApproval)
    return {
      behavior: 'deny',
      message: `${permissionTo(call)} has been denied: the session is in plan mode, where only read-only tools run until a person approves the plan.`,
    };
  const asked = firstMatchingRule(rules.ask, call, workdir);
  if (asked)
    return mode === 'dontAsk' ? notAsked(call) : { behavior: 'ask', reason: `rule ${named(asked)}`, byRule: true };
  if (facts.alwaysAsk) {
    if (mode === 'bypassPermissions') return ALLOW;
    return mode === 'dontAsk' ? notAsked(call) : { behavior: 'ask', reason: facts.alwaysAsk, byRule: true };
  }
  if (mode === 'bypassPermissions' || !facts.needsApproval) return ALLOW;
  if (allowingRule(rules.allow, call, workdir, literalStars)) return ALLOW;
  if (mode === 'acceptEdits' && facts.editsFiles && call.plan.filePath !== undefined) return ALLOW;
  return mode === 'dontAsk' ? notAsked(call) : { behavior: 'ask', reason: `permission mode ${mode}` };
}

/**
 * The decision once the call's PreToolUse hooks had their say (a hook's deny is handled before):
 * a hook's `ask` asks (in dontAsk it refuses), a hook's `allow` skips the person unless a rule
 * asked; neither lifts a rule's deny (Claude Code: hooks decide before rules, never over them).
 */
export function withHookDecision(
  decision: PermissionDecision,
  hook: 'allow' | 'deny' | 'ask' | undefined,
  mode: PermissionMode,
  call: PlannedToolUse,
): PermissionDecision {
  if (!call.plan.ok || decision.behavior === 'deny') return decision;
  if (hook === 'ask') return mode === 'dontAsk' ? notAsked(call) : { behavior: 'ask', reason: 'a PreToolUse hook' };
  if (hook === 'allow') return decision.behavior === 'ask' && decision.byRule ? decision : ALLOW;
  return decision;
}

/** Claude Code's wording: `Permission to use Bash with command rm -rf build`. */
function permissionTo(call: PlannedToolUse): string {
  const facts = rulesOf(call);
  const plan = call.plan.ok ? call.plan : undefined;
  if (facts.commands !== undefined || facts.notMatchable !== undefined)
    return `Permission to use ${call.name} with command ${facts.subject ?? ''}`;
  const target = plan?.filePath ?? facts.rulePath ?? facts.ruleSpecifier;
  return `Permission to use ${call.name}${target !== undefined ? ` with ${target}` : ''}`;
}

const named = (rule: SourcedRule) => `${rule.rule} from ${rule.source}`;

function notAsked(call: PlannedToolUse): PermissionDecision {
  return {
    behavior: 'deny',
    message:
      `${permissionTo(call)} has been denied: the session's permission mode is dontAsk, which refuses what would ` +
      'wait for a person. Continue without it, or ask the user for an allow rule.',
  };
}

/** Allow rules alone (input `allowRules`, in Claude Code's syntax): whether they approve the call. */
export function approvedByRules(allowRules: readonly string[], call: PlannedToolUse, workdir = ''): boolean {
  const rules = allowRules.map((rule) => ({ rule, source: 'allowRules' }));
  return allowingRule(rules, call, workdir) !== undefined;
}

/** One rule against one call (the rule alone must approve it). */
export function matchesAllowRule(rule: string, call: PlannedToolUse, workdir = ''): boolean {
  return approvedByRules([rule], call, workdir);
}

/** Whether a call waits for a person under a mode and allow rules alone (no deny or ask rules). */
export function needsApproval(mode: PermissionModeName, allowRules: readonly string[], call: PlannedToolUse): boolean {
  const rules = { allow: allowRules.map((rule) => ({ rule, source: 'allowRules' })), deny: [], ask: [] };
  return decide(permissionModeOf(mode), rules, call, '').behavior === 'ask';
}

/**
 * The mode a session starts in: input `permissionMode`, else `permissions.defaultMode`, else a
 * trusted repository's `defaultMode` (the files in order, local settings last: the last one that
 * names a mode wins, as in Claude Code), else `auto`. Plan mode changes it later (AgentSession).
 */
export function startingPermissionMode(
  input: { permissionMode: PermissionModeName; permissionModeDefaulted?: true },
  settings: readonly SettingsPermissions[] | undefined,
): PermissionMode {
  let mode = input.permissionMode;
  if (input.permissionModeDefaulted) for (const file of settings ?? []) mode = file.defaultMode ?? mode;
  return permissionModeOf(mode);
}
