/** The limits of one command: read from the worker's environment, written as bash's ulimit. */
import {
  byteSize,
  defaultLimits,
  describeLimits,
  limitsFromEnvironment,
  ulimitCommand,
} from '../../../src/sandbox/sandbox-limits';

test('defaults: 1024 processes (64 a core on bigger machines), 4 GiB a process, 16 GiB files, no CPU limit', () => {
  expect(defaultLimits(2)).toEqual({ processes: 1024, memoryBytes: 4 * 1024 ** 3, fileSizeBytes: 16 * 1024 ** 3 });
  expect(defaultLimits(64).processes).toBe(4096);
  expect(describeLimits(defaultLimits(2))).toBe('1024 processes, 4 GiB of memory per process, files up to 16 GiB');
});

test('the environment sets, lifts or rejects each', () => {
  const limits = limitsFromEnvironment({
    AGENT_SANDBOX_MAX_PROCESSES: '256',
    AGENT_SANDBOX_MAX_MEMORY: '2g',
    AGENT_SANDBOX_MAX_FILE_SIZE: 'unlimited',
    AGENT_SANDBOX_MAX_CPU_SECONDS: '600',
  });
  expect(limits).toEqual({ processes: 256, memoryBytes: 2 * 1024 ** 3, cpuSeconds: 600 });
  expect(() => limitsFromEnvironment({ AGENT_SANDBOX_MAX_MEMORY: 'lots' })).toThrow(
    'AGENT_SANDBOX_MAX_MEMORY=lots: a positive number of bytes (4g, 512m, 1073741824), or unlimited',
  );
  expect(() => limitsFromEnvironment({ AGENT_SANDBOX_MAX_PROCESSES: '-1' })).toThrow(
    'AGENT_SANDBOX_MAX_PROCESSES=-1: a positive number, or unlimited',
  );
  expect(byteSize('512M')).toBe(512 * 1024 ** 2);
  expect(byteSize('1.5g')).toBe(1.5 * 1024 ** 3);
});

test('ulimit: hard and soft, kilobytes for memory and file size, no process limit outside a sandbox', () => {
  const limits = { processes: 256, memoryBytes: 2 * 1024 ** 3, fileSizeBytes: 1024 ** 3, cpuSeconds: 60 };
  expect(ulimitCommand(limits, { processes: true })).toBe('ulimit -H -S -u 256 -d 2097152 -f 1048576 -t 60');
  expect(ulimitCommand(limits, { processes: false })).toBe('ulimit -H -S -d 2097152 -f 1048576 -t 60');
  expect(ulimitCommand({}, { processes: true })).toBe('');
});
