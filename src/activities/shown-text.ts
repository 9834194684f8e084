/**
 * What a running call shows outside the session (watchers' progress lines, heartbeat details in
 * `temporal workflow describe` and the UI): one short line, without terminal escapes, and with
 * credentials of well-known shapes masked, since a command line or its output may carry one.
 */

/** Colours, cursor moves and other terminal escape sequences: they mean nothing outside a terminal. */
const TERMINAL_ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
/** Control characters left once the escapes are gone (a lone ESC, a bell, a backspace). */
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Credentials as they commonly appear in a command line or a log line. Masking is best effort
 * (a secret of no known shape passes): encryption is what keeps payloads from Temporal's readers.
 */
const SECRET_NAME = String.raw`[\w-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)`;
const ASSIGNED = String.raw`["']?\s*[=:]\s*["']?`;
const SECRET_SHAPES: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----.*/g, '-----BEGIN PRIVATE KEY----- ***'],
  [/\b(sk-ant-|sk-|gh[pousr]_|github_pat_|glpat-|xox[abprs]-)[A-Za-z0-9_-]{8,}/g, '$1***'],
  [/\bAKIA[0-9A-Z]{16}\b/g, 'AKIA***'],
  [/\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1$2***'],
  [/(:\/\/[^\s:/@]+:)[^\s@/]+@/g, '$1***@'],
  // A name that ends in one of these, then `=` or `:` (GITHUB_TOKEN=…, "password": "…", --api-key=…).
  [new RegExp(String.raw`\b(${SECRET_NAME})(${ASSIGNED})[^\s"'&]+`, 'gi'), '$1$2***'],
];

export function maskSecrets(text: string): string {
  return SECRET_SHAPES.reduce((masked, [shape, replacement]) => masked.replace(shape, replacement), text);
}

/** `text` as one plain line of at most `maxChars`: escapes dropped, whitespace runs one space, secrets masked. */
export function shownLine(text: string, maxChars: number): string {
  const flat = text.replace(TERMINAL_ESCAPES, '').replace(/\s+/g, ' ').replace(CONTROL_CHARACTERS, '');
  const plain = maskSecrets(flat).trim();
  return plain.length > maxChars ? `${plain.slice(0, maxChars - 1)}…` : plain;
}

/** The last line with something on it, shown as `shownLine` shows it; undefined when there is none. */
export function lastLine(output: string, maxChars: number): string | undefined {
  const line = output
    .replace(TERMINAL_ESCAPES, '')
    .split(/\r?\n|\r/)
    .map((candidate) => candidate.trim())
    .filter(Boolean)
    .at(-1);
  return line === undefined ? undefined : shownLine(line, maxChars) || undefined;
}
