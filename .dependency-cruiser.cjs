/**
 * The architecture, checked (`npm run lint`): no import circles, and arrows only point down.
 *
 *   cli, worker ─▶ activities ─▶ infrastructure (store, live, sandbox, snapshots, git, workdir,
 *                                encryption, temporal, telemetry, dev-server) ─▶ shared
 *   workflows: agent-workflow ─▶ turn ─▶ session ─▶ workspace ─▶ core ─▶ shared
 *
 * Type-only imports count: a circle of types is still a circle a reader has to untangle.
 */
const INFRASTRUCTURE = '^src/(store|live|sandbox|snapshots|git|workdir|encryption|temporal|telemetry|dev-server)/';

/** A rule that `from` may not import `to`, with the reason people read when it fails. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import circles hide which part depends on which; break them by moving the shared piece down.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid(
      'shared-is-plain-data',
      'src/shared/ holds plain data and imports only src/shared/.',
      '^src/shared/',
      '^src/(?!shared/)',
    ),
    forbid(
      'workflows-see-no-implementation',
      'Workflow code imports shared data, its own folders, and activities as types only (eslint checks the `import type`).',
      '^src/workflows/',
      '^src/(?!workflows/|shared/|activities/index\\.ts$)',
    ),
    forbid(
      'core-is-pure',
      'core/ holds pure decisions: it imports only core/ and shared/.',
      '^src/workflows/core/',
      '^src/workflows/(?!core/)',
    ),
    forbid(
      'workspace-below-session',
      'workspace/ depends on core/ only (and the activity options).',
      '^src/workflows/workspace/',
      '^src/workflows/(session|turn)/|^src/workflows/(agent-workflow|index)\\.ts$',
    ),
    forbid(
      'session-below-turn',
      "session/ depends on workspace/ and core/ only: a turn's phases use the session, never the reverse.",
      '^src/workflows/session/',
      '^src/workflows/turn/|^src/workflows/(agent-workflow|index)\\.ts$',
    ),
    forbid(
      'turn-below-driver',
      'turn/ phases never import the driver.',
      '^src/workflows/turn/',
      '^src/workflows/(agent-workflow|index)\\.ts$',
    ),
    forbid(
      'infrastructure-below-activities',
      'Infrastructure is used by activities, the worker and the CLI; it never imports them.',
      INFRASTRUCTURE,
      '^src/(activities|cli|workflows)/|^src/(worker|worker-config|workflow-bundle)\\.ts$',
    ),
    forbid(
      'activities-below-entry-points',
      'Activities never import the CLI or the worker.',
      '^src/activities/',
      '^src/cli/|^src/worker\\.ts$',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(node_modules|lib)/' },
  },
};
