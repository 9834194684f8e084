#!/usr/bin/env node
// The `durable-agent` command: runs the TypeScript CLI through tsx's loader in this process.
require('tsx/cjs');
require('../src/cli/main.ts')
  .main(process.argv.slice(2))
  .then((code) => process.exit(code));
