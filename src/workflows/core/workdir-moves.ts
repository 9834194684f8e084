/**
 * Paths after a session's workdir moved to another host (host-loss.ts): what the model or a plan
 * named under the old workdir, under the one the session has now. Pure functions over plain data.
 */

/** The part of the loop state these read: each move of the workdir, oldest first. */
export interface WithMoves {
  workdirMoves?: { from: string; to: string }[];
}

/** A path under `from` moved to `to` (other paths stay as they are). */
export function movedPath(path: string, from: string, to: string): string {
  if (path === from) return to;
  return path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : path;
}

/** A path as the model or a plan gave it, under the workdir the session has now (after its moves). */
export function currentPath(state: WithMoves, path: string): string {
  return (state.workdirMoves ?? []).reduce((current, move) => movedPath(current, move.from, move.to), path);
}

/**
 * A call's input with the paths the tools take (`file_path`, `path`) under the current workdir:
 * the model may still name files under the workdir the session had before it moved.
 */
export function currentInput(state: WithMoves, input: unknown): unknown {
  if (!state.workdirMoves?.length || typeof input !== 'object' || input === null) return input;
  const fields = input as Record<string, unknown>;
  const moved = Object.fromEntries(
    ['file_path', 'path']
      .filter((key) => typeof fields[key] === 'string')
      .map((key) => [key, currentPath(state, fields[key] as string)]),
  );
  return { ...fields, ...moved };
}
