// Which test file runs in which tier (jest.config.js, docs/development.md). A file named nowhere here is unit-level: it
// runs in `npm test`, where starting a Temporal server fails it with a message that names its tier.
'use strict';

/** `npm test`: each runbook end to end on a dev server shared by the files of a jest worker. */
const E2E = [
  'test/smoke.test.ts',
  'runtime/tracker.test.ts',
  // approvalGatedRestore
  'test/e2e/restore.test.ts',
  // drDrill
  'test/e2e/drill.test.ts',
  'test/e2e/drill-rotation-cadence.test.ts',
  // queryExport and costExport
  'test/e2e/exports.test.ts',
  // postureReport
  'test/e2e/posture.test.ts',
  // cleanPoint
  'test/e2e/clean-point.test.ts',
  // recoveryPlan
  'test/e2e/recovery-plan.test.ts',
  // offboardSourceAccount and rotateCredentials
  'test/e2e/accounts.test.ts',
];

/** `npm test`: the one e2e file that also runs against the simulator in the real service's public dialect. */
const PUBLIC = ['test/e2e/restore.test.ts'];

/** `npm run test:full`: every other e2e file in the public dialect too (the runbooks' exactly-once and report claims). */
const PUBLIC_FULL = [
  'test/e2e/restore-adoption.test.ts',
  'test/e2e/drill.test.ts',
  'test/e2e/drill-evidence.test.ts',
  'test/e2e/drill-recovery-points.test.ts',
  'test/e2e/exports.test.ts',
  'test/e2e/focus-export.test.ts',
  'test/e2e/posture.test.ts',
  'test/e2e/accounts.test.ts',
  'test/e2e/inputs-discover.test.ts',
  // Job records read from the job list as the public dialect writes them.
  'steps/job-watcher.test.ts',
];

/** `npm run test:full`: what needs a server, a process tree or a heavy tool, beyond one run of each runbook. */
const FULL = [
  'test/runtime/attestation-cosign.test.ts',
  'test/runtime/timestamp-authority.test.ts',
  'test/docs/adding-a-runbook.test.ts',
  'test/e2e/approvals-view.test.ts',
  'test/e2e/bad-input.test.ts',
  'test/e2e/bounded-results.test.ts',
  'test/e2e/console-browser.test.ts',
  'test/e2e/console.test.ts',
  'test/e2e/demo-console.test.ts',
  'test/e2e/drill-evidence.test.ts',
  'test/e2e/drill-fan-out.test.ts',
  'test/e2e/drill-recovery-points.test.ts',
  'test/e2e/drill-clean-point.test.ts',
  'test/e2e/clean-point-crash.test.ts',
  'test/e2e/clean-point-throttle.test.ts',
  'test/e2e/clean-point-validation.test.ts',
  'test/e2e/recovery-plan-approval.test.ts',
  'test/e2e/recovery-plan-handover.test.ts',
  'test/e2e/drill-rotation.test.ts',
  'test/e2e/drill-validate.test.ts',
  'test/e2e/drill-validation-window.test.ts',
  'test/e2e/drill-timestamps.test.ts',
  'test/e2e/drill-selection.test.ts',
  'test/e2e/encrypted-history.test.ts',
  'test/e2e/evidence.test.ts',
  'test/e2e/focus-export.test.ts',
  'test/e2e/inputs-discover.test.ts',
  'test/e2e/machine-output.test.ts',
  'test/e2e/metrics.test.ts',
  'test/e2e/notifications.test.ts',
  'test/e2e/prometheus-panels.test.ts',
  'test/e2e/restore-adoption.test.ts',
  'test/e2e/rotation.test.ts',
  'test/e2e/scheduled-window.test.ts',
  'test/e2e/schedules.test.ts',
  'test/e2e/secrets-in-logs.test.ts',
  'test/e2e/snapshot-slots.test.ts',
  'test/e2e/traces.test.ts',
  'test/e2e/versioning.test.ts',
  'steps/job-watcher.test.ts',
  'test/cli/clean-point-run.test.ts',
  'test/cli/completion-workflow-ids.test.ts',
  'test/cli/doctor.test.ts',
  'test/cli/exit-codes.test.ts',
  'test/cli/demo-output.test.ts',
  'test/cli/evidence-oscal-validate.test.ts',
  'test/cli/help-examples-run.test.ts',
  'test/cli/temporal-profile.test.ts',
  'test/worker/health-server.test.ts',
  'test/worker/startup.test.ts',
  'test/deploy/compose-layout.test.ts',
  'test/deploy/compose.test.ts',
  'test/deploy/helm.test.ts',
  'test/deploy/prebuilt-bundle.test.ts',
  'test/deploy/prometheus-rules.test.ts',
  'test/deploy/release-in-place.test.ts',
];

/**
 * `npm run test:full`: kill -9 of separate processes (the reliability harness's short run, and a worker killed in an
 * approval watch, which waits out the watch's 2-minute heartbeat timeout), the cluster, and a rotating drill over 90
 * simulated days (a time-skipping server of its own each day, about 3 minutes).
 */
const RELIABILITY = [
  'test/reliability/short.test.ts',
  'test/reliability/cluster.test.ts',
  'test/e2e/approval-watch.test.ts',
  'test/e2e/drill-rotation-90-days.test.ts',
];

/** The jest projects (jest.config.js) each npm script runs (scripts/test-tier.js). */
const PROJECTS = {
  // `npm test`
  test: ['unit', 'e2e', 'public'],
  // `npm run test:full`
  full: ['full', 'public-full', 'reliability'],
};

module.exports = { E2E, PUBLIC, PUBLIC_FULL, FULL, RELIABILITY, PROJECTS };
