/**
 * The one line that best tells people what a tool result says: for a failure, its first line
 * that looks like one (a failing test run starts with `> shop@1.0.0 test`, which says nothing),
 * else the first line with text. Pure: the CLI and the activities both use it.
 */
import type { TextOrRef } from './conversation';

/** What test runners, compilers and shells print where something failed, strongest first. */
const FAILURE_PATTERNS: readonly RegExp[] = [
  // Test runners: jest `FAIL file` and `✕ name`, pytest `FAILED …` and `E   assert …`, go `--- FAIL:`, TAP `not ok`.
  /^\s*(FAIL|FAILED)\b|^\s*--- FAIL:|^\s*not ok\b|[✕✗✘]|^E\s+\S|AssertionError|^\s*●\s/,
  // Errors as programs print them: `TypeError: …`, `error[E0308]`, `error TS2322`, `panic: …`, `Traceback`.
  /\b[A-Za-z]*Error\b:|\berror(\[\w+\])?[: ]|\bERR!|^panic:|^Traceback\b|\bfatal:/i,
  /\bfail(ed|ure|ing)?\b/i,
  // A command's own exit status (bash.ts ends a result with it).
  /^Exit code: [1-9]\d*$/,
];

/** Banners that say a section of failures follows without saying what failed (pytest's `=== FAILURES ===`). */
const SECTION_RULE = /^\s*[=_]{3,}/;

export function usefulLine(text: string, isError: boolean): string {
  const lines = text.split('\n').filter((line) => line.trim());
  if (isError) {
    for (const pattern of FAILURE_PATTERNS) {
      const found = lines.find((line) => !SECTION_RULE.test(line) && pattern.test(line));
      if (found) return found.trim();
    }
  }
  return lines[0] ?? '';
}

/**
 * A failed result stored by reference keeps only its beginning as the preview: its failure line,
 * when further on, joins the preview so that a transcript (which has only the preview) shows it.
 */
export function withFailureLine(content: TextOrRef, text: string, isError: boolean): TextOrRef {
  if (!isError || 'text' in content) return content;
  const line = usefulLine(text, true);
  return !line || content.preview.includes(line) ? content : { ...content, preview: `${content.preview}\n${line}` };
}
