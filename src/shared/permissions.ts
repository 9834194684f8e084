/**
 * Permission rules in Claude Code's syntax, and where a session's rules come from: input
 * `permissions` (`{allow, deny, ask, defaultMode}`), input `allowRules` (allow rules, the older
 * field) and the repository's settings files' `permissions`. The syntax only: what a rule matches
 * is decided in src/workflows/core/permission-rules.ts. Pure zod and plain data.
 *
 * A rule is `Tool` (every call of it) or `Tool(content)`: `Bash(npm run lint:*)` (a prefix),
 * `Bash(npm run *)` (a wildcard), `Read(./.env)`, `Edit(src/**)` (gitignore-style paths),
 * `WebFetch(domain:example.com)`, `Agent(Explore)`; an MCP server's tools are `mcp__server`,
 * `mcp__server__*` or `mcp__server__tool`. Parentheses inside the content are written `\(` `\)`.
 */
import { z } from 'zod';
import { PERMISSION_MODE_NAMES, type PermissionModeName } from './permission-modes';

/** `Tool` or `Tool(content)`; a tool is letters, or an MCP name. */
const RULE = /^([A-Za-z]+|mcp__[A-Za-z0-9_-]+?(?:__\*)?)(?:\(([\s\S]*)\))?$/;

/** Longest rule accepted (real ones are a few dozen characters; they travel in history). */
export const PERMISSION_RULE_MAX_CHARS = 1024;
/** Most rules of one kind in one source. */
export const PERMISSION_RULES_MAX = 500;

const RULE_SHAPE =
  'must look like Bash(npm run lint:*), Read(./.env), Edit(src/**), WebFetch(domain:example.com) or mcp__server__tool';

export interface ParsedRule {
  /** The tool the rule names (`Bash`, `mcp__github`, `mcp__github__create_issue`). */
  tool: string;
  /** What is between the parentheses, unescaped; absent (or `*`) for the whole tool. */
  content?: string;
}

/**
 * A rule as written, or undefined when it is not one. `Tool()` and `Tool(*)` are the whole tool.
 * `literal`: the content as allow rules had it before Claude Code's wildcards (as written, `*` a word).
 */
export function parseRule(rule: string, literal = false): ParsedRule | undefined {
  const match = RULE.exec(rule);
  if (!match) return undefined;
  if (literal) return match[2] === undefined ? { tool: match[1]! } : { tool: match[1]!, content: match[2] };
  const content = match[2]?.replace(/\\([()])/g, '$1');
  return content === undefined || content === '' || content === '*'
    ? { tool: match[1]! }
    : { tool: match[1]!, content };
}

/** Why a rule cannot be used, in words for the input's error or a settings file's note; undefined when it can. */
/** A `*` that is Claude Code's wildcard (not the `:*` suffix), or an empty or `*` content: read differently before. */
export function hasWildcardStar(rule: string): boolean {
  const content = RULE.exec(rule)?.[2];
  if (content === undefined) return false;
  return content === '' || /\*/.test(content.endsWith(':*') ? content.slice(0, -2) : content);
}

export function ruleProblem(rule: string): string | undefined {
  if (rule.length > PERMISSION_RULE_MAX_CHARS) return `longer than ${PERMISSION_RULE_MAX_CHARS} characters`;
  const parsed = parseRule(rule);
  if (!parsed) return RULE_SHAPE;
  const content = parsed.content ?? '';
  if (content.includes(':*') && !content.endsWith(':*'))
    return 'the :* prefix wildcard goes at the end only (Bash(npm run:*))';
  if (parsed.tool.startsWith('mcp__') && parsed.content !== undefined)
    return 'MCP rules name a server or tool without parentheses (mcp__server, mcp__server__tool)';
  return undefined;
}

export const permissionRuleSchema = z.string().superRefine((rule, context) => {
  const problem = ruleProblem(rule);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

const rulesSchema = z.array(permissionRuleSchema).max(PERMISSION_RULES_MAX).optional();

/**
 * Input `permissions`, Claude Code's settings object. `additionalDirectories` is refused when it
 * names any: a session works only in its workdir (the tools and the sandbox confine it there).
 */
export const permissionsInputSchema = z
  .object({
    allow: rulesSchema,
    deny: rulesSchema,
    ask: rulesSchema,
    defaultMode: z.enum(PERMISSION_MODE_NAMES).optional(),
    additionalDirectories: z
      .array(z.string())
      .max(0, 'not supported: a session works only in its workdir (leave it out or empty)')
      .optional(),
  })
  .strict();

export type PermissionsInput = z.infer<typeof permissionsInputSchema>;

export type PermissionBehavior = 'allow' | 'deny' | 'ask';

/** A rule and where it came from (`input permissions`, `.claude/settings.json`): what a refusal names. */
export interface SourcedRule {
  rule: string;
  source: string;
}

/** The session's rules by behaviour, every source together. */
export interface PermissionRuleSet {
  allow: SourcedRule[];
  deny: SourcedRule[];
  ask: SourcedRule[];
}

/**
 * One settings file's `permissions` as prepareSession read it. Deny and ask rules are kept
 * whether or not the repository is trusted (they can only make a session safer); allow rules
 * and `defaultMode` only when it is.
 */
export interface SettingsPermissions {
  /** The settings file, relative to the workdir (`.claude/settings.json`). */
  file: string;
  allow?: string[];
  deny?: string[];
  ask?: string[];
  defaultMode?: PermissionModeName;
}

/** What prepareSession adds to the session: the settings files' permissions (absent when none). */
export interface PermissionsPrepared {
  settingsPermissions?: SettingsPermissions[];
}

/** Every rule of the session: input `permissions`, input `allowRules`, then the settings files'. */
export function permissionRuleSet(
  input: { allowRules?: readonly string[]; permissions?: PermissionsInput },
  settings: readonly SettingsPermissions[] = [],
): PermissionRuleSet {
  const set: PermissionRuleSet = { allow: [], deny: [], ask: [] };
  const add = (behavior: PermissionBehavior, rules: readonly string[] | undefined, source: string) => {
    for (const rule of rules ?? []) set[behavior].push({ rule, source });
  };
  for (const behavior of ['allow', 'deny', 'ask'] as const)
    add(behavior, input.permissions?.[behavior], 'input permissions');
  add('allow', input.allowRules, 'input allowRules');
  for (const file of settings)
    for (const behavior of ['allow', 'deny', 'ask'] as const) add(behavior, file[behavior], file.file);
  return set;
}
