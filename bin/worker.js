#!/usr/bin/env node
// `npm run worker`: the compiled worker from dist/, or its sources when that is stale (see entry.js).
/** Long enough for the worker to have connected, loaded its bundle and started polling. */
const WRITE_COMPILE_CACHE_AFTER_MS = 15_000;

require('./entry')
  .loadEntry('worker')
  .then((worker) => {
    worker.runWorkerProcess();
    // A worker runs until stopped (or killed): its compile cache is written once it is up, not at exit.
    setTimeout(() => require('./compile-cache').saveCompileCache(), WRITE_COMPILE_CACHE_AFTER_MS).unref();
  });
