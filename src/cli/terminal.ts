/**
 * Where the CLI writes, and how: colours and the spinner only on a terminal, never with
 * NO_COLOR set (https://no-color.org), never in `--json` output.
 */
export interface Terminal {
  write(text: string): void;
  /** Colours and in-place redraws are allowed. */
  readonly tty: boolean;
  readonly color: boolean;
}

export function stdoutTerminal(
  environment: NodeJS.ProcessEnv = process.env,
  stream: NodeJS.WriteStream = process.stdout,
): Terminal {
  const tty = Boolean(stream.isTTY);
  return {
    write: (text) => void stream.write(text),
    tty,
    color: tty && !environment.NO_COLOR && environment.TERM !== 'dumb',
  };
}

const CODES = {
  dim: [2, 22],
  bold: [1, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;
export type Style = keyof typeof CODES;

export function paint(terminal: Pick<Terminal, 'color'>, style: Style, text: string): string {
  if (!terminal.color) return text;
  const [open, close] = CODES[style];
  return `\x1b[${open}m${text}\x1b[${close}m`;
}

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `42 s`, `3 min 5 s`: how long a call has run. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
