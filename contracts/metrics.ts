/**
 * The runbook metrics, emitted through the Temporal SDK's metric meter next to its own `temporal_*` ones. One list, so
 * that the workflows, the worker, the docs and the tests agree on the names. Tags stay bounded: runbook names,
 * outcomes, endpoint templates (never IDs), statuses, drill and plan names, verdicts and resource types.
 */
export const RunbookMetric = {
  /** Counter {runbook}: runs that began. */
  runsStarted: 'runbooks_runs_started_total',
  /** Counter {runbook, outcome: completed | failed | cancelled}: runs that ended. */
  runsFinished: 'runbooks_runs_finished_total',
  /** Histogram {runbook, outcome: the request's final status}: seconds from submitting a request to its decision. */
  approvalWait: 'runbooks_approval_wait_seconds',
  /**
   * Drill gauges, set by the report's activity (runbooks/dr-drill/metrics.ts), of each drill's last run. Labels are
   * the drill's name, the verdict and the resource type, never a resource ID: per-resource figures are in the report.
   * Gauge {drill, verdict: PASS | PARTIAL | FAIL, resource_type}: resources by verdict, 0 included.
   */
  drillResources: 'runbooks_drill_resources',
  /** Gauge {drill, verdict}: 1 for the last run's overall verdict, 0 for the other two. */
  drillVerdict: 'runbooks_drill_verdict',
  /** Gauges {drill}: the worst RPO and RTO of the last run (NaN when none was measured), and their targets. */
  drillWorstRpo: 'runbooks_drill_worst_rpo_seconds',
  drillRpoTarget: 'runbooks_drill_rpo_target_seconds',
  drillWorstRto: 'runbooks_drill_worst_rto_seconds',
  drillRtoTarget: 'runbooks_drill_rto_target_seconds',
  /**
   * Gauges {drill}, for `latest-clean` drills (NaN otherwise): the age of the oldest clean point restored (the drill's
   * start minus its point in time) and the most a clean point lay behind the newest point of its window.
   */
  drillCleanPointAge: 'runbooks_drill_clean_point_age_seconds',
  drillCleanPointBehind: 'runbooks_drill_clean_point_behind_newest_seconds',
  /** Gauge {drill}: when the last run finished (Unix seconds); picks the freshest of several workers' values. */
  drillLastRun: 'runbooks_drill_last_run_timestamp_seconds',
  /**
   * Coverage gauges {drill}, from the output folder's sealed drill reports, read by each worker every 5 minutes
   * (worker/coverage-gauges.ts): the resources in the drill's scope, those overdue (no verified PASS within 90 days),
   * never drilled and never passed, and its readiness score (0-100), as `runbooks coverage --drill` and
   * `runbooks evidence score` compute them. Never a resource ID: the console's Coverage page names them.
   */
  coverageResources: 'runbooks_coverage_resources',
  coverageOverdue: 'runbooks_coverage_overdue',
  coverageNeverDrilled: 'runbooks_coverage_never_drilled',
  coverageNeverPassed: 'runbooks_coverage_never_passed',
  readinessScore: 'runbooks_readiness_score',
  /**
   * Recovery plan gauges, set by the report's activity (runbooks/recovery-plan/metrics.ts), of each plan's last run.
   * Labels are the plan's name and the verdict, never a step or resource ID: per-step figures are in the report.
   * Gauge {plan, verdict: PASS | FAIL}: 1 for the last run's verdict, 0 for the other.
   */
  planVerdict: 'runbooks_plan_verdict',
  /** Gauges {plan}: the last run's RTO and the plan's target. */
  planRto: 'runbooks_plan_rto_seconds',
  planRtoTarget: 'runbooks_plan_rto_target_seconds',
  /** Gauges {plan}: the common point's age at the run's start, and its skew (both NaN without a common point). */
  planRpo: 'runbooks_plan_rpo_seconds',
  planSkew: 'runbooks_plan_skew_seconds',
  /** Gauge {plan}: steps of the last run that failed (their skipped dependents not counted). */
  planFailedSteps: 'runbooks_plan_failed_steps',
  /** Gauge {plan}: when the last run finished (Unix seconds); picks the freshest of several workers' values. */
  planLastRun: 'runbooks_plan_last_run_timestamp_seconds',
  /** Counters {runbook}: rows and bytes of finished exports. */
  exportedRows: 'runbooks_exported_rows_total',
  exportedBytes: 'runbooks_exported_bytes_total',
  /** Counter {endpoint, status}: every HTTP call to the service; status is the HTTP code, `error` or `timeout`. */
  serviceCalls: 'runbooks_service_calls_total',
  /** Histogram {endpoint}: milliseconds per call. */
  serviceCallDuration: 'runbooks_service_call_duration_ms',
  /** Counter {endpoint}: calls the service answered 429 (rate limited). */
  serviceThrottled: 'runbooks_service_throttled_total',
  /** Counter {endpoint}: calls made by a retried activity attempt (attempt 2 and later). */
  serviceRetries: 'runbooks_service_retries_total',
  /**
   * Approval waits the worker is watching (worker/approval-gauges.ts), refreshed every 15 s. Gauges {runbook}: how many
   * requests wait for reviewers, how long the oldest has waited, and the seconds left to the nearest approval deadline
   * (NaN when none waits). Each worker reports the requests it looked at in the last ten minutes.
   */
  approvalsWaiting: 'runbooks_approvals_waiting',
  approvalOldestWait: 'runbooks_approval_oldest_wait_seconds',
  approvalDeadlineLeft: 'runbooks_approval_deadline_seconds_left',
  /**
   * Schedules that start runs on the worker's task queue, as Temporal counts them (worker/schedule-gauges.ts), read
   * every minute. Gauges {schedule, runbook}: runs missed for the catch-up window, and runs skipped because the
   * previous one still ran (the overlap policy). Both only grow.
   */
  scheduleMissed: 'runbooks_schedule_missed_catchup_window',
  scheduleSkipped: 'runbooks_schedule_skipped_overlap',
  /**
   * The project's limiter of snapshot starts (runbooks/snapshot-slots), queried every minute (worker/limiter-gauges.ts).
   * Gauges {project}: the slots it allows, the ceiling the service showed at its last 429 and that ceiling's age (NaN
   * when it has none: no 429 yet, or forgotten), and the slots held and waited for.
   */
  slotsLimit: 'runbooks_snapshot_slots_limit',
  slotsCeiling: 'runbooks_snapshot_slots_ceiling',
  slotsCeilingAge: 'runbooks_snapshot_slots_ceiling_age_seconds',
  slotsHeld: 'runbooks_snapshot_slots_held',
  slotsWaiting: 'runbooks_snapshot_slots_waiting',
} as const;

/** Seconds histograms get buckets from a second to days (approvals wait that long); the SDK's default is for ms. */
export const SECONDS_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86_400, 3 * 86_400];
