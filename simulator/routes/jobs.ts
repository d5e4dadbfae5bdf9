import { z } from 'zod';
import { JobListInput } from '../../api';
import type { SimContext, SimModule } from '../context';
import { notFound, parse } from '../errors';
import { matchesInNotIn, readPageParams, sortItems } from '../filters';
import { backupJobView, jobRan, jobStatus, providerResourceIdOf, restoreJobView, settleJobs, shownAt } from '../jobs';
import type { BackupJobRecord, RestoreJobRecord, SimState } from '../model';
import { paginate } from '../paging';

type ProjectParams = { Params: { projectId: string } };
type JobParams = { Params: { projectId: string; jobId: string } };
type JobRecord = BackupJobRecord | RestoreJobRecord;

const DEFAULT_PAGE_SIZE = 50;

/** A day: the longest job a test needs; longer ones only make a run look hung. */
const Duration = z.number().min(0).max(86_400);
const JobsConfigInput = z.strictObject({
  backupSeconds: Duration.optional(),
  restoreSeconds: Duration.optional(),
  querySeconds: Duration.optional(),
  maxConcurrentBackups: z.number().int().min(0).max(1000).optional(),
  /** Replaces the whole map: resource ID → the outcome its next jobs reach instead of JOB_COMPLETED. */
  outcomes: z
    .record(z.string().min(1), z.enum(['JOB_FAILED', 'JOB_PARTIAL', 'JOB_REJECTED', 'JOB_SKIPPED']))
    .optional(),
});

/** Job reading and listing (docs/service-interface.md §3), plus the control routes that configure and reveal jobs. */
export const jobsModule: SimModule = {
  name: 'jobs',
  routes(app, ctx) {
    jobRoutes(app, ctx, 'backup-jobs', 'backup job', (state) => state.backupJobs, backupJobView);
    jobRoutes(app, ctx, 'restore-jobs', 'restore job', (state) => state.restoreJobs, restoreJobView);

    app.put('/_simulator/jobs/config', async (req) => {
      const input = parse(JobsConfigInput, req.body, 'body');
      const config = ctx.state.jobsConfig;
      for (const key of ['backupSeconds', 'restoreSeconds', 'querySeconds', 'maxConcurrentBackups'] as const) {
        const value = input[key];
        if (value !== undefined) config[key] = value;
      }
      if (input.outcomes) config.outcomes = input.outcomes;
      return config;
    });

    app.get('/_simulator/jobs', async () => {
      settleJobs(ctx);
      return {
        backupJobs: Object.values(ctx.state.backupJobs).map((j) => backupJobView(ctx, j)),
        restoreJobs: Object.values(ctx.state.restoreJobs).map((j) => restoreJobView(ctx, j)),
      };
    });
  },
  summary(ctx) {
    return { jobsConfig: ctx.state.jobsConfig };
  },
};

/** Reading one job of a kind and listing them, on the jobs settled at the current simulated time. */
function jobRoutes<T extends JobRecord>(
  app: Parameters<SimModule['routes']>[0],
  ctx: SimContext,
  /** Below the project: `backup-jobs` or `restore-jobs`. */
  path: string,
  noun: string,
  jobsOf: (state: SimState) => Record<string, T>,
  view: (ctx: SimContext, job: T) => unknown,
): void {
  const base = `/v1/projects/:projectId/${path}`;

  app.get<JobParams>(`${base}/:jobId`, async (req) => {
    ctx.requireProject(req.params.projectId);
    ctx.authorize(req, 'jobs.view');
    settleJobs(ctx);
    const job = jobsOf(ctx.state)[req.params.jobId];
    if (!job) throw notFound(`${noun} ${req.params.jobId}`);
    return { job: view(ctx, job) };
  });

  app.post<ProjectParams>(base, async (req) => {
    ctx.requireProject(req.params.projectId);
    ctx.authorize(req, 'jobs.view');
    const page = readPageParams(req.query);
    const body = parse(JobListInput, req.body, 'body');
    settleJobs(ctx);
    const result = paginate(listJobs(ctx, Object.values(jobsOf(ctx.state)), body), page, DEFAULT_PAGE_SIZE, body);
    return { jobs: result.items.map((j) => view(ctx, j)), ...pageFields(result) };
  });
}

function pageFields(result: { totalCount: number; nextToken: string | null }) {
  return { totalCount: result.totalCount, nextToken: result.nextToken };
}

/** Filters on the status at the current simulated time; newest first unless sorted otherwise. */
function listJobs<T extends JobRecord>(ctx: SimContext, jobs: T[], input: JobListInput): T[] {
  const now = ctx.clock.now();
  const f = input.filters ?? {};
  const matched = jobs.filter(
    (j) =>
      matchesInNotIn(j.id, f.jobId) &&
      matchesInNotIn(j.snapshotId, f.snapshotId) &&
      matchesInNotIn<string>(jobStatus(j, shownAt(ctx.state, j, now)), f.status) &&
      matchesInNotIn(providerResourceIdOf(ctx.state, j.resourceId), f.providerResourceId),
  );
  const sorts = input.sorts ?? [{ field: 'createdTime', order: 'DESC' } as const];
  return sortItems(
    matched,
    sorts,
    (j, field) => sortKey(j, field, now),
    (j) => j.id,
  );
}

/** Start and end times exist only once reached; a job that never ran has no start time. */
function sortKey(job: JobRecord, field: 'createdTime' | 'startTime' | 'endTime', now: number): number | undefined {
  if (field === 'createdTime') return job.createdAt;
  if (field === 'endTime') return now >= job.endAt ? job.endAt : undefined;
  return jobRan(job) && now >= job.startAt ? job.startAt : undefined;
}
