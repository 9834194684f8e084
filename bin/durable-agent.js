#!/usr/bin/env node
// The `durable-agent` command: the compiled CLI from dist/, or its sources when that is stale (see entry.js).
require('./entry')
  .loadEntry('cli/main')
  .then((cli) => cli.main(process.argv.slice(2)))
  .then((code) => process.exit(code));
