/**
 * Claude Code's permission modes, as the input, sub-agent types and settings name them. Pure data:
 * read by the workflow, the activities and the CLI alike.
 *
 * - `default`: calls of tools that are not read-only (Write, Edit, Bash, MCP tools without
 *   `readOnlyHint`) wait for a person unless a rule allows them.
 * - `acceptEdits`: Write and Edit inside the workdir go ahead; the rest as in `default`.
 * - `plan`: read-only tools only, until a person approves `ExitPlanMode`.
 * - `bypassPermissions`: nothing waits for a person (deny rules still refuse).
 * - `dontAsk`: whatever would wait for a person is refused instead.
 *
 * Accepted as aliases, for sessions started before the modes were Claude Code's: `auto` (ours
 * meant "never ask") is `bypassPermissions`, `ask` is `default`. Claude Code's own `auto` is a
 * classifier we do not have, so `auto` keeps the meaning it always had here.
 */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Every name the input accepts: the modes, then the aliases. */
export const PERMISSION_MODE_NAMES = [...PERMISSION_MODES, 'auto', 'ask'] as const;
export type PermissionModeName = (typeof PERMISSION_MODE_NAMES)[number];

/** A mode by any of its names (`auto` → `bypassPermissions`, `ask` → `default`). */
export function permissionModeOf(name: PermissionModeName): PermissionMode {
  if (name === 'auto') return 'bypassPermissions';
  if (name === 'ask') return 'default';
  return name;
}

/**
 * How much a mode lets through without a person, least first. Not every pair is comparable in
 * every case (`dontAsk` refuses what `default` would ask about), but neither ever runs a call the
 * one after it would refuse or ask about, which is what bounding a sub-agent needs.
 */
const LEAST_PERMISSIVE_FIRST: readonly PermissionMode[] = [
  'plan',
  'dontAsk',
  'default',
  'acceptEdits',
  'bypassPermissions',
];

/** The stricter of two modes: a sub-agent's mode is never looser than its parent's. */
export function stricterMode(a: PermissionMode, b: PermissionMode): PermissionMode {
  return LEAST_PERMISSIVE_FIRST.indexOf(a) <= LEAST_PERMISSIVE_FIRST.indexOf(b) ? a : b;
}
