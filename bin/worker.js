#!/usr/bin/env node
// `npm run worker`: the compiled worker from dist/, or its sources when that is stale (see entry.js).
require('./entry')
  .loadEntry('worker')
  .then((worker) => worker.runWorkerProcess());
