/** The tests' global setup stops what it started when a later step fails (a real process here). */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startInOrder } from '../support/start-in-order';

test('a failing step stops what the steps before it started, last first, and the failure is thrown', async () => {
  const stopped: string[] = [];
  const server = spawn('sleep', ['600'], { stdio: 'ignore' });
  const exited = once(server, 'exit');
  const setup = startInOrder(async (started) => {
    started(() => {
      stopped.push('server');
      server.kill('SIGTERM');
    });
    started(() => {
      stopped.push('database');
      throw new Error('the database was already gone');
    });
    throw new Error('bundling failed');
  });
  await expect(setup).rejects.toThrow('bundling failed');
  expect(stopped).toEqual(['database', 'server']);
  const [code, signal] = await exited;
  expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
});

test('a setup that succeeds stops nothing', async () => {
  const stop = jest.fn();
  await expect(startInOrder(async (started) => (started(stop), 'ready'))).resolves.toBe('ready');
  expect(stop).not.toHaveBeenCalled();
});
