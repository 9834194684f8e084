/**
 * A settings file's `permissions` (`{"allow": [...], "deny": [...], "ask": [...], "defaultMode": ...}`)
 * read rule by rule: a rule that is not one (src/shared/permissions.ts) is skipped with a note,
 * the others are kept. Which of them apply depends on trust, decided when the session is
 * prepared (trustedPermissions). Never throws; notes name entries, never their contents.
 */
import { PERMISSION_MODE_NAMES, type PermissionModeName } from '../../shared/permission-modes';
import type { SkippedSetting } from '../../shared/hooks';
import { PERMISSION_RULES_MAX, ruleProblem, type SettingsPermissions } from '../../shared/permissions';
import { isEntries, shown } from './settings-entries';

type Skip = (path: string, reason: string) => void;

const RULE_KINDS = ['allow', 'deny', 'ask'] as const;

/** The usable part of `permissions`; undefined when nothing in it is. */
export function readPermissions(file: string, value: unknown, skip: Skip): SettingsPermissions | undefined {
  if (!isEntries(value)) return void skip('permissions', 'expected an object ({"allow": [...], "deny": [...]})');
  const read: SettingsPermissions = { file };
  for (const [key, entry] of Object.entries(value)) {
    const path = `permissions.${shown(key)}`;
    if ((RULE_KINDS as readonly string[]).includes(key)) {
      const rules = readRules(path, entry, skip);
      if (rules.length) read[key as (typeof RULE_KINDS)[number]] = rules;
    } else if (key === 'defaultMode') {
      if (typeof entry === 'string' && (PERMISSION_MODE_NAMES as readonly string[]).includes(entry))
        read.defaultMode = entry as PermissionModeName;
      else skip(path, `not a permission mode (${PERMISSION_MODE_NAMES.join(', ')})`);
    } else if (key === 'additionalDirectories') {
      if (!Array.isArray(entry) || entry.length > 0) skip(path, 'not used: a session works only in its workdir');
    } else skip(path, 'a permissions setting durable-agent does not read (it reads allow, deny, ask, defaultMode)');
  }
  return Object.keys(read).length > 1 ? read : undefined;
}

function readRules(path: string, value: unknown, skip: Skip): string[] {
  if (!Array.isArray(value)) {
    skip(path, 'expected a list of rules like "Bash(npm test:*)"');
    return [];
  }
  const rules: string[] = [];
  value.forEach((rule: unknown, index) => {
    const problem = typeof rule === 'string' ? ruleProblem(rule) : 'a rule is a string like "Bash(npm test:*)"';
    if (problem) skip(`${path}.${index}`, `rule skipped: ${problem}`);
    else if (rules.length >= PERMISSION_RULES_MAX)
      skip(`${path}.${index}`, `over ${PERMISSION_RULES_MAX} rules: skipped`);
    else rules.push(rule as string);
  });
  return rules;
}

/**
 * What applies of the files' permissions: deny and ask rules always (they can only make a
 * session safer, so a repository need not be trusted for them), allow rules and `defaultMode`
 * only from a trusted repository. A repository never turns asking off: its `defaultMode`
 * `bypassPermissions` (or `auto`) is not taken, as Claude Code does not take it from project settings.
 */
export function trustedPermissions(
  files: readonly SettingsPermissions[],
  trusted: boolean,
): { applied: SettingsPermissions[]; untrusted: string[]; skipped: SkippedSetting[] } {
  const applied: SettingsPermissions[] = [];
  const untrusted: string[] = [];
  const skipped: SkippedSetting[] = [];
  for (const file of files) {
    const { allow, defaultMode, ...kept } = file;
    const mode = defaultMode && !['bypassPermissions', 'auto'].includes(defaultMode) ? defaultMode : undefined;
    if (trusted && defaultMode && !mode)
      skipped.push({ file: file.file, path: 'permissions.defaultMode', reason: 'a repository cannot turn asking off' });
    if (!trusted && (allow?.length || mode)) untrusted.push(`${file.file} (permissions: allow rules, defaultMode)`);
    const entry: SettingsPermissions = {
      ...kept,
      ...(trusted && allow?.length ? { allow } : {}),
      ...(trusted && mode ? { defaultMode: mode } : {}),
    };
    if (Object.keys(entry).length > 1) applied.push(entry);
  }
  return { applied, untrusted, skipped };
}
