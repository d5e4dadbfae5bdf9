#!/usr/bin/env node
// The container's HEALTHCHECK: exits 0 while the worker's heartbeat is fresh, 1 otherwise.
import { join } from 'node:path';
import { dataDirOf } from '../runtime/config';
import { HEARTBEAT_FILE, heartbeatProblem } from './heartbeat';

heartbeatProblem(join(dataDirOf(process.env), HEARTBEAT_FILE)).then(
  (problem) => {
    if (problem === undefined) return;
    process.stderr.write(`unhealthy: ${problem}\n`);
    process.exitCode = 1;
  },
  (err: unknown) => {
    process.stderr.write(`unhealthy: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
