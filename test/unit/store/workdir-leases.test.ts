/** Workdir leases in the file store, on a real directory; and that a lease stays one file there. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FileWorkdirLeases } from '../../../src/store/workdir-leases';
import { scratchDir } from '../../support/paths';
import { describeWorkdirLeases } from '../../support/workdir-leases';

describeWorkdirLeases('the file store', () => new FileWorkdirLeases(scratchDir('leases')));

test('renewals do not pile up files: a lease is its latest generation only', async () => {
  const directory = scratchDir('leases');
  const leases = new FileWorkdirLeases(directory);
  const holder = { workflowId: 'long-session', firstRunId: 'run' };
  await leases.take('host-a:/work/repo', holder, 60_000);
  for (let renewal = 0; renewal < 10; renewal++) await leases.renew('host-a:/work/repo', holder, 60_000);
  const [folder] = readdirSync(directory);
  expect(readdirSync(join(directory, folder!))).toEqual(['000000000011.json']);
});
