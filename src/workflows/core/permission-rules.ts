/**
 * What Claude Code's permission rules say about one planned call: which rule matches it, in the
 * syntax of src/shared/permissions.ts. Pure functions over the call's plan (its name, the names
 * rules also give its tool, its path, commands and specifier): no tool is named here.
 *
 * - `Bash(npm test)`: exactly that command; `Bash(npm run lint:*)`: commands starting with those
 *   words; `Bash(npm run *)`: `*` is any text, and a trailing ` *` also matches nothing
 *   (`Bash(ls *)` matches `ls` and `ls -la`, not `lsof`).
 * - An allow rule approves a command line only if every simple command in it matches some allow
 *   rule (`Bash(npm test:*)` does not approve `npm test && rm -rf /`); a deny or ask rule matches
 *   a line when any of its commands matches, seen through `sudo`, `env X=1`, `nohup`, `timeout`
 *   and the like.
 * - `Read(…)` and `Edit(…)`: gitignore-style paths. `./x` and `/x` are anchored at the workdir,
 *   `//x` at the file system's root, a pattern with no slash matches at any depth (`.env`,
 *   `*.pem`); a matching directory covers everything beneath it; `~/…` never matches (nothing
 *   outside the workdir is reachable).
 * - Anything else with content matches the call's specifier (`Agent(Explore)`,
 *   `WebFetch(domain:*.example.com)`) with the same `*` wildcard.
 */
import type { PlannedToolUse, ToolRules } from '../../shared/activity-io';
import { parseRule, type ParsedRule, type SourcedRule } from '../../shared/permissions';
import { rulesOf } from './tool-rules';

/** The first rule of `rules` that matches the call (deny and ask rules: any of its commands). */
export function firstMatchingRule(
  rules: readonly SourcedRule[],
  call: PlannedToolUse,
  workdir: string,
): SourcedRule | undefined {
  const facts = rulesOf(call);
  return rules.find((sourced) => {
    const rule = parseRule(sourced.rule);
    if (!rule || !namesCall(rule, call, facts)) return false;
    if (rule.content === undefined) return true;
    if (facts.rulePath !== undefined) return pathMatches(rule.content, facts.rulePath, workdir);
    if (isCommandLine(facts)) return commandPieces(facts).some((words) => wildcardCommandMatches(rule.content!, words));
    return wildcardSubjectMatches(rule.content, specifierOf(facts));
  });
}

/**
 * The allow rule that approves the call, if any. A call whose plan says no rule may approve it
 * (`alwaysAsk`: a settings file) gets none; one whose commands cannot be matched
 * (`notMatchable`: `$(…)`, `&`) only a bare rule (`Bash`). A command line needs every one of its
 * simple commands matched, by the same or different rules. Plans recorded before commands were
 * parsed match their subject's start, as they did then.
 */
export function allowingRule(
  rules: readonly SourcedRule[],
  call: PlannedToolUse,
  workdir: string,
  literalStars = false,
): SourcedRule | undefined {
  const facts = rulesOf(call);
  if (facts.alwaysAsk) return undefined;
  const commandMatches = literalStars ? literalCommandMatches : wildcardCommandMatches;
  const subjectMatches = literalStars ? literalSubjectMatches : wildcardSubjectMatches;
  const named = rules.flatMap((sourced) => {
    const rule = parseRule(sourced.rule, literalStars);
    return rule && namesCall(rule, call, facts) ? [{ sourced, content: rule.content }] : [];
  });
  const bare = named.find((entry) => entry.content === undefined);
  if (bare) return bare.sourced;
  if (facts.notMatchable) return undefined;
  const matches = (predicate: (content: string) => boolean) =>
    named.find((entry) => predicate(entry.content!))?.sourced;
  if (facts.commands) {
    if (facts.commands.length === 0) return undefined;
    const covered = facts.commands.every((words) => named.some((entry) => commandMatches(entry.content!, words)));
    return covered ? matches((content) => commandMatches(content, facts.commands![0]!)) : undefined;
  }
  if (facts.rulePath !== undefined) return matches((content) => pathMatches(content, facts.rulePath!, workdir));
  const subject = specifierOf(facts);
  return matches((content) => subjectMatches(content, subject));
}

/** The rule names the call's tool: its own name, the names its plan gives it, an MCP server's names (bare rules only). */
function namesCall(rule: ParsedRule, call: PlannedToolUse, facts: ToolRules): boolean {
  // Another name of the tool: Claude Code's (`Edit` rules cover Write) or an old one (`Task` is `Agent`).
  if (rule.tool === call.name || facts.ruleNames?.includes(rule.tool) || facts.aliases?.includes(rule.tool))
    return true;
  return rule.content === undefined && (facts.allowedBy?.includes(rule.tool) ?? false);
}

/** A shell command line (Bash): its plan lists its commands, or says why they cannot be listed. */
const isCommandLine = (facts: ToolRules) => facts.commands !== undefined || facts.notMatchable !== undefined;

const specifierOf = (facts: ToolRules) => (facts.ruleSpecifier ?? facts.subject ?? '').trim();

/**
 * The commands a deny or ask rule is matched against: the parsed ones, and (for lines the parser
 * gave up on, and as a second look at every line) the raw line cut at its operators, so that
 * `for f in *; do rm "$f"; done` still shows an `rm`. Best effort: a sandbox is the real fence.
 */
function commandPieces(facts: ToolRules): string[][] {
  const pieces = (facts.subject ?? '')
    .split(/\|\||&&|\$\(|[;&|\n`(){}]/)
    .map((piece) => piece.replace(/["']/g, '').trim().split(/\s+/).filter(Boolean));
  return [...(facts.commands ?? []), ...pieces].map(unwrapped).filter((words) => words.length > 0);
}

/** Words that run the command after them: a deny rule for `rm` also refuses `sudo rm`, `env X=1 rm`. */
const WRAPPERS = new Set(['sudo', 'env', 'nohup', 'exec', 'time', 'nice', 'command', 'builtin', 'xargs', 'timeout']);
const OPTIONS_WITH_VALUE = new Set(['-u', '-g', '-n', '-s', '-k', '-C', '-D', '-U']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!']);

function unwrapped(words: string[]): string[] {
  let start = 0;
  while (start < words.length) {
    const word = words[start]!;
    const wrapper = WRAPPERS.has(word);
    if (!wrapper && !KEYWORDS.has(word) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) break;
    start++;
    // A wrapper's options (`sudo -u root`, `timeout -s KILL 10`, `nice -n 5`).
    while (wrapper && start < words.length && /^(-|\d)/.test(words[start]!))
      start += OPTIONS_WITH_VALUE.has(words[start]!) ? 2 : 1;
  }
  return words.slice(start);
}

/** A `Bash(…)` rule's content against one command's words. */
export function wildcardCommandMatches(pattern: string, words: readonly string[]): boolean {
  if (!pattern.endsWith(':*') && hasWildcard(pattern)) return wildcardMatches(pattern, words.join(' '));
  return literalCommandMatches(pattern, words);
}

/** Before Claude Code's wildcards (patch `allow-rule-wildcards`): exact words, or a `:*` prefix. */
function literalCommandMatches(pattern: string, words: readonly string[]): boolean {
  if (pattern.endsWith(':*')) return wordsStartWith(words, pattern.slice(0, -2), true);
  return wordsStartWith(words, pattern, false);
}

/** `npm test` matches exactly those words; as a prefix, those words and any after them. */
function wordsStartWith(words: readonly string[], pattern: string, prefix: boolean): boolean {
  const expected = pattern.trim().split(/\s+/).filter(Boolean);
  if (expected.length === 0 || words.length < expected.length || (!prefix && words.length !== expected.length))
    return false;
  return expected.every((word, index) => words[index] === word);
}

/** A specifier (`Explore`, `domain:api.example.com`), or a plan's subject: exact, `:*` prefix or `*` wildcard. */
function wildcardSubjectMatches(pattern: string, subject: string): boolean {
  if (!pattern.endsWith(':*') && hasWildcard(pattern)) return wildcardMatches(pattern, subject);
  return literalSubjectMatches(pattern, subject);
}

/** Plans without parsed commands (recorded before them): the subject's start, as before. */
function literalSubjectMatches(pattern: string, subject: string): boolean {
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2);
    return subject === prefix || subject.startsWith(`${prefix} `);
  }
  return subject === pattern;
}

/** An unescaped `*` that is not the legacy `:*` suffix. */
const hasWildcard = (pattern: string) => /(^|[^\\])\*/.test(pattern.endsWith(':*') ? pattern.slice(0, -2) : pattern);

/** Claude Code's wildcard: `*` is any text (`\*` a star); a lone trailing ` *` may match nothing. */
export function wildcardMatches(pattern: string, text: string): boolean {
  const parts = pattern
    .split(/(?<!\\)\*/)
    .map((part) => part.replace(/\\\*/g, '*').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  let source = parts.join('.*');
  if (parts.length === 2 && parts[1] === '' && parts[0]!.endsWith(' ')) source = `${parts[0]!.slice(0, -1)}(?: .*)?`;
  return new RegExp(`^${source}$`, 's').test(text);
}

/**
 * A `Read(…)` or `Edit(…)` pattern against the call's absolute path, gitignore-style: the path
 * matches when it or one of its directories does.
 */
export function pathMatches(pattern: string, path: string, workdir: string): boolean {
  let base = workdir;
  let glob = pattern;
  let anchored = false;
  if (glob.startsWith('~')) return false;
  if (glob.startsWith('//')) [base, glob, anchored] = ['', glob.slice(2), true];
  else if (glob.startsWith('./')) [glob, anchored] = [glob.slice(2), true];
  else if (glob.startsWith('/')) [glob, anchored] = [glob.slice(1), true];
  const directoryOnly = glob.endsWith('/');
  glob = glob.replace(/\/+$/, '');
  if (glob === '' || glob === '**') return base === '' || path === workdir || path.startsWith(`${workdir}/`);
  if (glob.includes('/')) anchored = true;
  const relative =
    base === '' ? path.replace(/^\/+/, '') : path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
  if (relative === undefined || relative === '') return false;
  const regex = globRegex(glob);
  const segments = relative.split('/');
  // The path itself, then each directory above it (a directory pattern matches only those).
  for (let length = segments.length - (directoryOnly ? 1 : 0); length >= 1; length--) {
    const candidate = anchored ? segments.slice(0, length).join('/') : segments[length - 1]!;
    if (regex.test(candidate)) return true;
  }
  return false;
}

/** A gitignore glob as a regular expression: `**` any directories, `*` and `?` within one name, `[…]` a class. */
function globRegex(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index]!;
    if (glob.startsWith('**/', index)) {
      source += '(?:.*/)?';
      index += 2;
    } else if (glob.startsWith('**', index)) {
      source += '.*';
      index += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[' && glob.indexOf(']', index + 1) > index + 1) {
      const end = glob.indexOf(']', index + 1);
      source += `[${glob
        .slice(index + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      index = end;
    } else if (char === '\\' && index + 1 < glob.length) source += escaped(glob[++index]!);
    else source += escaped(char);
  }
  return new RegExp(`^${source}$`, 's');
}

const escaped = (char: string) => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
