#!/usr/bin/env node
// Re-records the replay fixtures: runs the e2e suite with RUNBOOKS_RECORD_HISTORIES set (each file's teardown saves
// the histories of its closed runs), keeps one history per branch and rewrites test/fixtures/histories/ from scratch,
// so no stale fixture survives. With `--from <dir>`, selects from an earlier recording instead of running the suite.
// A branch is what the workflow code did, read from its history: workflow type, outcome (with the failure type),
// activity types (local ones too), signals, timers, patches and cancellations. Two runs with the same branch issue
// the same kinds of commands, so replaying both would guard nothing more.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'histories');

function kebab(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase();
}

function decodePayload(payload) {
  try {
    return JSON.parse(Buffer.from(payload?.data ?? '', 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

function outcomeOf(last) {
  const failed = last.workflowExecutionFailedEventAttributes;
  if (failed) return `failed-${kebab(failed.failure?.applicationFailureInfo?.type ?? 'untyped')}`;
  const kinds = {
    EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: 'completed',
    EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: 'canceled',
    EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: 'terminated',
    EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT: 'timed-out',
    EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: 'continued-as-new',
  };
  return kinds[last.eventType] ?? kebab(String(last.eventType));
}

/** The branch a history took: its workflow type, outcome and the sorted features that tell branches apart. */
function branchOf(history) {
  const events = history.events ?? [];
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  const last = events[events.length - 1];
  if (!type || !last) throw new Error('not a history: no WorkflowExecutionStarted event');
  const features = new Set();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) features.add(kebab(scheduled.activityType.name));
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = decodePayload(marker.details?.data?.payloads?.[0]);
      features.add(kebab(data?.activity_type ?? 'local-activity'));
    } else if (marker) {
      const patch = decodePayload(marker.details?.patch_data?.payloads?.[0]);
      features.add(patch?.id ? `patch-${kebab(patch.id)}` : kebab(marker.markerName));
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal) features.add(`${kebab(signal.signalName)}-signal`);
    const failure = event.activityTaskFailedEventAttributes?.failure;
    if (failure) features.add(`activity-${kebab(failure.applicationFailureInfo?.type ?? 'failed')}`);
    if (event.activityTaskTimedOutEventAttributes) features.add('activity-timed-out');
    if (event.activityTaskCancelRequestedEventAttributes) features.add('cancels-activity');
    if (event.timerStartedEventAttributes) features.add('timer');
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) features.add('child-workflow');
    if (event.workflowExecutionCancelRequestedEventAttributes) features.add('cancel-requested');
  }
  return { type, outcome: outcomeOf(last), features: [...features].sort(), events: events.length };
}

function readRecording(dir) {
  const runs = [];
  for (const testFile of fs.readdirSync(dir).sort()) {
    for (const file of fs.readdirSync(path.join(dir, testFile)).sort()) {
      if (!file.endsWith('.json')) continue;
      const text = fs.readFileSync(path.join(dir, testFile, file), 'utf8');
      runs.push({ source: `${testFile}/${file}`, text, ...branchOf(JSON.parse(text)) });
    }
  }
  return runs;
}

/** One run per branch (the shortest history), named `<runbook>--<outcome>[--<what sets it apart>]`. */
function selectAndName(runs) {
  const branches = new Map();
  for (const run of runs) {
    const key = JSON.stringify([run.type, run.outcome, run.features]);
    const kept = branches.get(key);
    if (!kept || run.events < kept.events || (run.events === kept.events && run.source < kept.source)) {
      branches.set(key, run);
    }
  }
  const groups = new Map();
  for (const run of branches.values()) {
    const base = `${kebab(run.type)}--${run.outcome}`;
    groups.set(base, [...(groups.get(base) ?? []), run]);
  }
  const named = [];
  for (const [base, group] of groups) {
    // Features every run of the group shares say nothing; the others are what sets each branch apart.
    const shared = group[0].features.filter((f) => group.every((run) => run.features.includes(f)));
    for (const run of group) {
      const own = run.features.filter((f) => !shared.includes(f));
      named.push({ ...run, name: `${base}${own.length > 0 ? `--${own.join('--')}` : ''}.json` });
    }
  }
  return named.sort((a, b) => a.name.localeCompare(b.name));
}

function writeFixtures(named) {
  // Only this code's recordings are replaced; subfolders keep histories of earlier workflow code, which must replay too.
  fs.mkdirSync(FIXTURES, { recursive: true });
  for (const file of fs.readdirSync(FIXTURES)) {
    if (file.endsWith('.json')) fs.rmSync(path.join(FIXTURES, file));
  }
  for (const run of named) {
    // Pretty-printed, so that a re-recording reads as a diff.
    fs.writeFileSync(path.join(FIXTURES, run.name), `${JSON.stringify(JSON.parse(run.text), null, 2)}\n`);
    console.log(`${run.name}  (${run.events} events, from ${run.source})`);
  }
  console.log(`${named.length} histories in ${path.relative(REPO, FIXTURES)}/`);
}

function main() {
  const fromIndex = process.argv.indexOf('--from');
  let dir = fromIndex >= 0 ? process.argv[fromIndex + 1] : undefined;
  const temporary = dir === undefined;
  if (dir === undefined) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runbooks-histories-'));
    const jest = require.resolve('jest/bin/jest');
    const run = spawnSync(process.execPath, [jest, 'test/e2e'], {
      cwd: REPO,
      stdio: 'inherit',
      env: { ...process.env, RUNBOOKS_RECORD_HISTORIES: dir },
    });
    if (run.status !== 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      console.error('The e2e suite failed: the fixtures were left as they were.');
      process.exit(run.status ?? 1);
    }
  }
  try {
    const runs = readRecording(dir);
    if (runs.length === 0) throw new Error(`no histories were recorded in ${dir}`);
    writeFixtures(selectAndName(runs));
  } finally {
    if (temporary) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
