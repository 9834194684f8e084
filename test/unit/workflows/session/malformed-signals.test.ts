/** The notes of dropped signals: held while the transcript does not exist yet, then in order. */
import { type DroppedSignal, DroppedSignals } from '../../../../src/workflows/session/malformed-signals';

test('notes taken before the transcript exists reach it first, in the order the signals came', () => {
  const notes = new DroppedSignals();
  notes.note({ signal: 'userMessage', problem: 'got null; userMessage takes {"text":"…"}' });
  notes.note({ signal: 'interrupt', problem: 'got a number; interrupt takes {} or {"reason":"…"}' });
  const transcript: DroppedSignal[] = [];
  notes.deliverTo((note) => transcript.push(note));
  notes.note({ signal: 'subAgentApprovals', problem: 'pending: required' });
  expect(transcript.map((note) => note.signal)).toEqual(['userMessage', 'interrupt', 'subAgentApprovals']);
});
