import { MockActivityEnvironment } from '@temporalio/testing';
import { CallProgress, type CallDetails, whileHeartbeating } from '../../../src/activities/heartbeat';

describe('heartbeat details of a running call', () => {
  test('each heartbeat carries the call, its summary, its elapsed time and its last line, as plain JSON', async () => {
    const environment = new MockActivityEnvironment();
    const beats: unknown[] = [];
    let sawLine!: () => void;
    const lineSeen = new Promise<void>((resolve) => (sawLine = resolve));
    environment.on('heartbeat', (details: unknown) => {
      beats.push(details);
      if ((details as CallDetails).lastLine === 'step 1 of 3') sawLine();
    });
    const command = 'Bash \x1b[1mmake\x1b[0m all &&\n  GITHUB_TOKEN=ghp_abcdefghijklmnop ./publish.sh';
    const summary = 'Bash make all && GITHUB_TOKEN=*** ./publish.sh';
    const call = new CallProgress('Bash', command);
    await environment.run(() =>
      whileHeartbeating(async () => {
        call.onOutput('compiling…\n');
        call.onOutput('step 1 of 3\n');
        await lineSeen;
      }, call),
    );
    const last = beats.at(-1) as CallDetails;
    expect(last).toEqual({ tool: 'Bash', summary, elapsedMs: expect.any(Number), lastLine: 'step 1 of 3' });
    expect(JSON.parse(JSON.stringify(last))).toEqual(last);
  });

  test('without a call, heartbeats carry nothing (model and workspace activities)', async () => {
    const environment = new MockActivityEnvironment();
    const beats: unknown[] = [];
    let beaten!: () => void;
    const firstBeat = new Promise<void>((resolve) => (beaten = resolve));
    environment.on('heartbeat', (details: unknown) => (beats.push(details), beaten()));
    await environment.run(() => whileHeartbeating(() => firstBeat));
    expect(beats).toEqual([undefined]);
  });

  test('a call done before the first interval sends no heartbeat (each would be a write of the server)', async () => {
    const environment = new MockActivityEnvironment();
    const beats: unknown[] = [];
    environment.on('heartbeat', (details: unknown) => beats.push(details));
    expect(
      await environment.run(() => whileHeartbeating(async () => 'done', new CallProgress('Read', 'Read a.txt'))),
    ).toBe('done');
    expect(beats).toEqual([]);
  });

  test('a summary is one line of at most 120 characters; the last line at most 200', () => {
    const call = new CallProgress('Bash', `Bash ${'x'.repeat(300)}`);
    call.onOutput(`${'y'.repeat(1000)}\n`);
    expect(call.summary).toHaveLength(120);
    expect(call.lastLine).toHaveLength(200);
  });
});
