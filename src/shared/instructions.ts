/**
 * Instruction files (`AGENTS.md`, `CLAUDE.md`) as they cross the workflow/activity boundary: which
 * went into the system prompt, and which directories' nested files the session has been shown.
 * Their contents never enter history: the system prompt is stored by reference, and a nested
 * file reaches the model inside the Read result that found it (stored like any result).
 */

/** The names an instruction file has, in the order they are read in a directory. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

export interface InstructionFilesLoaded {
  /** The instruction files in the system prompt (paths: the workdir's relative, the user's absolute), for people. */
  instructionFiles?: string[];
}

export interface NestedInstructionsRequest {
  /** Directories (relative to the workdir) whose instruction files the session was already shown. */
  instructionDirs?: string[];
}

export interface NestedInstructionsLoaded {
  /** Directories (relative to the workdir) whose instruction files this result showed the model for the first time. */
  instructionDirs?: string[];
}
