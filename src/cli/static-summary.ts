/**
 * The summary the Temporal UI shows for a session our CLI starts (its list and the workflow's
 * page): the first line of its prompt. Sub-agents get theirs from the workflow (`Task: …`).
 */
export const STATIC_SUMMARY_MAX_CHARS = 80;

/** The prompt's first line with something on it, cut to 80 characters; undefined for a prompt of none. */
export function staticSummaryOf(prompt: string | undefined): string | undefined {
  const line = prompt
    ?.split(/\r?\n/)
    .map((candidate) => candidate.replace(/\s+/g, ' ').trim())
    .find(Boolean);
  if (!line) return undefined;
  return line.length > STATIC_SUMMARY_MAX_CHARS ? `${line.slice(0, STATIC_SUMMARY_MAX_CHARS - 1)}…` : line;
}
