/**
 * The workflow code, bundled once per version of it. Bundling takes seconds, most of a worker's
 * start; a worker that starts again (after a crash, a deploy, `durable-agent run`) loads the
 * bundle instead, so a replacement worker is polling sooner. The cache is keyed by a hash of the
 * workflow sources and the installed packages, so a stale bundle is never used.
 *
 *   npm run bundle     # bundles ahead of time (the Docker image does it at build time)
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type BundleOptions, bundleWorkflowCode } from '@temporalio/worker';

// This file runs from src/ (tsx, Jest) or dist/ (the build): the bundle is always made from the
// TypeScript sources, so both bundle the same code and hash it the same way.
const PROJECT_ROOT = join(__dirname, '..');
const SOURCE_ROOT = join(PROJECT_ROOT, 'src');
/** Everything the workflow bundle is built from (ESLint keeps workflow imports to these folders). */
const SOURCES = ['workflows', 'shared'];
const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'durable-agent');

/** `AGENT_WORKFLOW_BUNDLE` names a prebuilt bundle to use as it is (tests build one per run). */
export async function workflowBundle(
  environment: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = () => {},
): Promise<{ codePath: string }> {
  const given = environment.AGENT_WORKFLOW_BUNDLE?.trim();
  if (given) return { codePath: given };
  const codePath = join(CACHE_DIR, `workflow-bundle-${sourceHash()}.js`);
  if (existsSync(codePath)) return { codePath };
  log('Bundling the workflow code (once for this version of it) …');
  const { code } = await bundleWorkflowCode(workflowBundleOptions());
  mkdirSync(CACHE_DIR, { recursive: true });
  // Write then rename: a worker starting beside this one never loads half a bundle.
  const temporary = `${codePath}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, codePath);
  for (const name of readdirSync(CACHE_DIR)) {
    if (name.startsWith('workflow-bundle-') && join(CACHE_DIR, name) !== codePath && !name.endsWith('.tmp'))
      rmSync(join(CACHE_DIR, name), { force: true });
  }
  return { codePath };
}

/**
 * How every bundle of the workflows is made (the worker's, the tests', the replays', the benchmarks').
 *
 * With a reused V8 context (the SDK's default) each workflow evaluates the bundle's modules anew,
 * for its own module state. zod has none a workflow could see, and loading it (its schema classes)
 * cost each workflow 8 ms, 6% of the workflow thread's time with 300 sessions started at once:
 * preload.ts loads it once for all of them. Our schemas stay per workflow: the SDK deep-freezes preloaded modules,
 * and zod writes to a schema as it parses.
 */
export function workflowBundleOptions(): BundleOptions {
  return {
    workflowsPath: join(SOURCE_ROOT, 'workflows'),
    preloadModules: [join(SOURCE_ROOT, 'workflows', 'preload.ts')],
    logger: quiet,
  };
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const folder of SOURCES) {
    for (const file of filesUnder(join(SOURCE_ROOT, folder)))
      hash.update(relative(SOURCE_ROOT, file)).update(readFileSync(file));
  }
  // How the bundle is made (its options, above) is part of what it is.
  hash.update(readFileSync(join(SOURCE_ROOT, 'workflow-bundle.ts')));
  const lock = join(PROJECT_ROOT, 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex').slice(0, 16);
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? filesUnder(join(directory, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(directory, entry.name)]
          : [],
    )
    .sort();
}

const quiet = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};

if (require.main === module) {
  workflowBundle({}, console.log).then(
    ({ codePath }) => console.log(`Workflow bundle: ${codePath}`),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
