// Lint rules that guard what the compiler cannot: workflow code must stay deterministic.
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** The tools' names, read from their one list (src/shared/tool-names.ts). */
const toolNames = [
  ...readFileSync(new URL('./src/shared/tool-names.ts', import.meta.url), 'utf8')
    .match(/TOOL_NAMES = \[([^\]]*)\]/)[1]
    .matchAll(/'([^']+)'/g),
].map((match) => match[1]);

export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'dist/', '.temporal-cli/', '.test-tmp/', 'coverage/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Small files, one concept each: a file that outgrows this wants splitting. Code lines are
    // counted, not comments or blank lines: explaining why must never cost a file its budget.
    // Long functions hide their steps; a function past 60 lines wants its steps named.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipComments: true, skipBlankLines: true }],
      'max-lines-per-function': ['error', { max: 60, skipComments: true, skipBlankLines: true, IIFEs: true }],
    },
  },
  {
    // Workflow code is replayed after every crash: no I/O, no environment, no SDK clients,
    // and activities only as types (their code runs in the worker, never in the workflow sandbox).
    files: ['src/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not do I/O: use an activity.' })),
            { name: '@anthropic-ai/sdk', message: 'Model calls belong in src/activities/model/.' },
            { name: '@temporalio/client', message: 'Workflow code must not use a Temporal client.' },
            { name: '@temporalio/worker', message: 'Workflow code must not import the worker.' },
            { name: '@temporalio/activity', message: 'Workflow code must not import activity APIs.' },
          ],
          patterns: [
            {
              group: ['../activities', '../activities/*', '**/activities/**'],
              allowTypeImports: true,
              message: 'Import activities with `import type` only; call them through proxyActivities.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Workflow code must not read the environment.' },
        { name: 'setTimeout', message: 'Use sleep() or condition() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'require', message: 'Workflow code must not load modules at run time.' },
      ],
      // Tools declare their rules and the plan carries them: workflow code never compares a tool's name.
      'no-restricted-syntax': [
        'error',
        {
          selector: `Literal[value=/^(${toolNames.join('|')})$/]`,
          message: "Name no tool in workflow code: read the call's rules (core/tool-rules.ts) instead.",
        },
      ],
    },
  },
  {
    // A session's files are touched only through src/workdir/, which resolves every path beneath
    // the workdir's descriptor: code that reads or writes them by path with the worker's
    // privileges would follow a link the session planted (a race no check can win).
    files: [
      'src/activities/tools/**/*.ts',
      'src/activities/workspace/**/*.ts',
      'src/snapshots/**/*.ts',
      'src/activities/session/**/*.ts',
      'src/activities/hooks/**/*.ts',
      'src/activities/mcp/**/*.ts',
    ],
    // bash-commands.ts reads the bash grammar its npm package ships, never a session's file.
    ignores: ['src/activities/tools/bash-commands.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
            name,
            allowTypeImports: true,
            message: "Touch a session's files through src/workdir/ (Workdir, DirectoryHandle), never by path.",
          })),
        },
      ],
    },
  },
  {
    // The one exception: plans recorded before the rules travelled with them get them by name.
    files: ['src/workflows/core/tool-rules.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
