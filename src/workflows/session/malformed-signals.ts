/**
 * Signal handlers that parse their input first (src/shared/message-inputs.ts). A signal has no
 * caller to answer, so a malformed one is dropped: a warning in the worker's log and a note in the
 * session's transcript naming the signal and the problem. Nothing is thrown: an exception in a
 * signal handler fails the workflow task, and every later one, for good.
 */
import { log, patched } from '@temporalio/workflow';
import { type MessageInput, parseMessageInput } from '../../shared/message-inputs';
import { MALFORMED_SIGNALS_PATCH } from '../core/features';

/** A signal that was dropped, for the transcript. */
export interface DroppedSignal {
  signal: string;
  problem: string;
}

export interface SignalHandling<T> {
  /** The input parsed. */
  valid(value: T): void;
  /** What the handler did with any input before malformed ones were dropped (replay of older histories). */
  legacy(raw: unknown): void;
  /** Tells the session (the transcript note). */
  dropped(note: DroppedSignal): void;
}

/** The handler to register for `input`'s signal. */
export function parsedSignal<T>(input: MessageInput<T>, handling: SignalHandling<T>): (...args: unknown[]) => void {
  return (...args) => {
    const parsed = parseMessageInput(input, args);
    if (parsed.ok) return handling.valid(parsed.value);
    if (!patched(MALFORMED_SIGNALS_PATCH)) return handling.legacy(args[0]);
    log.warn(`Signal ${input.name} dropped: ${parsed.problem}`, { signal: input.name, problem: parsed.problem });
    handling.dropped({ signal: input.name, problem: parsed.problem });
  };
}

/**
 * The notes of dropped signals, held until the transcript takes them: signals sent before this
 * run are delivered as their handlers are set, before the session's transcript exists.
 */
export class DroppedSignals {
  private held: DroppedSignal[] = [];
  private sink: ((note: DroppedSignal) => void) | undefined;

  note(dropped: DroppedSignal): void {
    if (this.sink) this.sink(dropped);
    else this.held.push(dropped);
  }

  /** From now on notes go to `sink`; those held go first. */
  deliverTo(sink: (note: DroppedSignal) => void): void {
    this.sink = sink;
    for (const dropped of this.held.splice(0)) sink(dropped);
  }
}
