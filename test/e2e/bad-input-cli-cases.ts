// The bad-input suite's CLI cases: `runbooks` as a child process, each exiting 2 with one message.
import { DAY, drill, NEXT_DAY, queryExport, restore, type Targets } from './bad-input-cases';

export interface CliCase {
  name: string;
  args: (t: Targets) => string[];
  /** What standard error says (one message, no stack trace). */
  message: RegExp;
}

const json = (value: unknown) => JSON.stringify(value);
const longId = 'x'.repeat(1001);
const costInput = json({ window: 'previous-day' });

/** The `runbooks` CLI as a child process: each exits with 2 and one message; nothing starts. */
export const CLI_CASES: CliCase[] = [
  {
    name: 'a misspelled drill filter',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { resources: { filters: { resourceTypes: {} } } }))],
    message: /resources\.filters\.resourceTypes: unknown field \(did you mean 'resourceType'\?\)/,
  },
  {
    name: 'a misspelled retention',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { retentionDay: 30 }))],
    message: /retentionDay: unknown field \(did you mean 'retentionDays'\?\)/,
  },
  {
    name: 'a misspelled recovery-point window',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { recoveryPoint: { select: 'latest', window: 3 } }))],
    message: /recoveryPoint\.window: unknown field \(did you mean 'windowDays'\?\)/,
  },
  {
    name: 'a misspelled cost groupBy',
    args: () => ['start', 'costExport', '--input', json({ window: 'previous-day', options: { groupby: 'RESOURCE' } })],
    message: /options\.groupby: unknown field \(did you mean 'groupBy'\?\)/,
  },
  {
    name: 'a one-hour cost window',
    args: () => [
      'start',
      'costExport',
      '--input',
      json({ window: { startTime: DAY, endTime: '2026-11-01T01:00:00Z' } }),
    ],
    message: /window\.endTime: the window must span at least 24 hours/,
  },
  {
    name: 'a cost window ending before it starts',
    args: () => ['start', 'costExport', '--input', json({ window: { startTime: NEXT_DAY, endTime: DAY } })],
    message: /window\.endTime: must be after startTime/,
  },
  {
    name: 'a restore to destination {}',
    args: (t) => ['start', 'approvalGatedRestore', '--input', json(restore(t, { destination: {} }))],
    message: /destination: name a target \(amazonBucket, bucketA, s3Bucket, googleBucket, bucketC, gcsBucket/,
  },
  {
    name: 'a drill restoring to destination {}',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { destination: {} }))],
    message: /destination: name a target/,
  },
  {
    name: 'a query to destination {}',
    args: (t) => ['start', 'queryExport', '--input', json(queryExport(t, { destination: {} }))],
    message: /query\.destination: name the bucket the results go to/,
  },
  {
    name: 'a whitespace-only query',
    args: (t) => ['start', 'queryExport', '--input', json(queryExport(t, { query: ' \t\n' }))],
    message: /query\.query: must not be blank/,
  },
  {
    name: 'drill ids and filters at once',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { resources: { ids: [t.resourceId], filters: {} } }))],
    message: /resources\.filters: give resource ids or inventory filters, not both/,
  },
  {
    name: 'maxResources with ids',
    args: (t) => [
      'start',
      'drDrill',
      '--input',
      json(drill(t, { resources: { ids: [t.resourceId], maxResources: 5 } })),
    ],
    message: /resources\.maxResources: bounds a selection by filters only/,
  },
  {
    name: 'maxResources over 5,000',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { resources: { filters: {}, maxResources: 5001 } }))],
    message: /resources\.maxResources: .*5000/,
  },
  {
    name: 'parallelism over 100',
    args: (t) => ['start', 'drDrill', '--input', json(drill(t, { parallelism: 101 }))],
    message: /parallelism: at most 100 resources are drilled at once/,
  },
  {
    name: 'files on a bucket restore',
    args: (t) => [
      'start',
      'approvalGatedRestore',
      '--input',
      json(restore(t, { files: [{ path: '/a', isDirectory: false }] })),
    ],
    message: /files: only a files restore takes files/,
  },
  {
    name: 'topN without a resource grouping',
    args: () => ['start', 'costExport', '--input', json({ window: 'previous-day', options: { topN: 3 } })],
    message: /options\.topN: topN applies only with groupBy RESOURCE or RESOURCE_AND_VAULT/,
  },
  {
    name: 'a blank account ID',
    args: () => ['start', 'offboardSourceAccount', '--input', json({ accountId: ' ' })],
    message: /accountId: must not be blank/,
  },
  { name: '--input missing', args: () => ['start', 'drDrill'], message: /--input is required for drDrill/ },
  { name: '--input empty', args: () => ['start', 'drDrill', '--input', ''], message: /--input is empty/ },
  {
    name: '--input bad JSON',
    args: () => ['start', 'drDrill', '--input', '{"name":'],
    message: /--input is not valid JSON/,
  },
  {
    name: '--input an unreadable file',
    args: () => ['start', 'drDrill', '--input', '/nonexistent/drill.json'],
    message: /--input \/nonexistent\/drill\.json: not inline JSON, and the file cannot be read \(ENOENT\)/,
  },
  {
    name: '--input not an object',
    args: () => ['start', 'costExport', '--input', '[]'],
    message: /input: .*expected object/,
  },
  {
    name: 'an unknown runbook',
    args: () => ['start', 'drDril', '--input', '{}'],
    message: /^unknown runbook 'drDril': did you mean 'drDrill'\?\n$/,
  },
  {
    name: 'input for rotateCredentials',
    args: () => ['start', 'rotateCredentials', '--input', '{}'],
    message: /rotateCredentials takes no input/,
  },
  {
    name: 'a blank --id',
    args: () => ['start', 'costExport', '--input', costInput, '--id', '  '],
    message: /--id must not be blank/,
  },
  {
    name: 'an --id over 1000 characters',
    args: () => ['start', 'costExport', '--input', costInput, '--id', longId],
    message: /--id is 1001 characters long; at most 1000/,
  },
  {
    name: 'an unknown start flag',
    args: () => ['start', 'costExport', '--input', costInput, '--bogus'],
    message: /^unknown option '--bogus' for 'start'/,
  },
  {
    name: '--wait with a value',
    args: () => ['start', 'costExport', '--input', costInput, '--wait=yes'],
    message: /--wait.*does not take an argument/,
  },
  { name: 'status without an ID', args: () => ['status'], message: /missing <workflowId>/ },
  { name: 'status of a blank ID', args: () => ['status', ''], message: /<workflowId> must not be blank/ },
  { name: 'status with two IDs', args: () => ['status', 'a', 'b'], message: /unexpected argument 'b'/ },
  { name: 'status --watch=1', args: () => ['status', 'a', '--watch=1'], message: /--watch.*does not take an argument/ },
  {
    name: 'list --limit 0',
    args: () => ['list', '--limit', '0'],
    message: /--limit must be a whole number from 1 to 10000, not '0'/,
  },
  { name: 'list --limit 1e3', args: () => ['list', '--limit', '1e3'], message: /--limit must be a whole number/ },
  { name: 'list --limit abc', args: () => ['list', '--limit', 'abc'], message: /--limit must be a whole number/ },
  { name: 'list --runbook empty', args: () => ['list', '--runbook', ''], message: /--runbook must be one of/ },
  {
    name: 'list --runbook unknown',
    args: () => ['list', '--runbook', 'drill'],
    message: /^unknown runbook 'drill': did you mean 'drDrill'\?\n$/,
  },
  { name: 'list with a positional', args: () => ['list', 'drDrill'], message: /unexpected argument 'drDrill'/ },
  { name: 'cancel without an ID', args: () => ['cancel'], message: /missing <workflowId>/ },
  { name: 'cancel an over-long ID', args: () => ['cancel', longId], message: /<workflowId> is 1001 characters long/ },
  { name: 'nudge a blank ID', args: () => ['nudge', ' '], message: /<workflowId> must not be blank/ },
  {
    name: 'nudge with a control character',
    args: () => ['nudge', 'a\u0007b'],
    message: /must not hold control characters/,
  },
  { name: 'schedule with no subcommand', args: () => ['schedule'], message: /usage: runbooks schedule <command>/ },
  {
    name: 'an unknown schedule subcommand',
    args: () => ['schedule', 'reschedule', 'x'],
    message: /unknown schedule command 'reschedule'/,
  },
  {
    name: 'schedule create with a bad cron',
    args: () => [
      'schedule',
      'create',
      'bad-cron',
      '--runbook',
      'costExport',
      '--cron',
      'every day',
      '--input',
      costInput,
    ],
    message: /--cron must be a cron expression/,
  },
  {
    name: 'schedule create with a cron the server refuses',
    args: () => [
      'schedule',
      'create',
      'bad-minute',
      '--runbook',
      'costExport',
      '--cron',
      '61 * * * *',
      '--input',
      costInput,
    ],
    message: /^the Temporal server refused the schedule: Minute is not in range \[0-59\]/,
  },
  {
    name: 'schedule create with an unknown time zone',
    args: () => [
      'schedule',
      'create',
      'bad-tz',
      '--runbook',
      'costExport',
      '--cron',
      '0 2 * * *',
      '--timezone',
      'Mars/Olympus',
      '--input',
      costInput,
    ],
    message: /--timezone must be an IANA time zone .*not 'Mars\/Olympus'/,
  },
  {
    name: 'schedule create with a misspelled input field',
    args: () => [
      'schedule',
      'create',
      'bad-input',
      '--runbook',
      'costExport',
      '--cron',
      '0 2 * * *',
      '--input',
      json({ window: 'previous-day', pagesize: 10 }),
    ],
    message: /pagesize: unknown field \(did you mean 'pageSize'\?\)/,
  },
  {
    name: 'schedule create without --runbook',
    args: () => ['schedule', 'create', 'no-runbook', '--cron', '0 2 * * *'],
    message: /--runbook must be one of/,
  },
  {
    name: 'schedule create with a blank ID',
    args: () => ['schedule', 'create', ' ', '--runbook', 'costExport', '--cron', '0 2 * * *', '--input', costInput],
    message: /<scheduleId> must not be blank/,
  },
  { name: 'schedule delete without an ID', args: () => ['schedule', 'delete'], message: /missing <scheduleId>/ },
  {
    name: 'schedule trigger with two IDs',
    args: () => ['schedule', 'trigger', 'a', 'b'],
    message: /unexpected argument 'b'/,
  },
  {
    name: 'schedule list with an argument',
    args: () => ['schedule', 'list', 'all'],
    message: /unexpected argument 'all'/,
  },
  {
    name: 'demo --timeout abc',
    args: () => ['demo', '--timeout', 'abc'],
    message: /--timeout must be a whole number from 30 to 86400, not 'abc'/,
  },
  {
    name: 'demo --timeout 10',
    args: () => ['demo', '--timeout', '10'],
    message: /--timeout must be a whole number from 30 to 86400/,
  },
  {
    name: 'demo --timeout 1e9',
    args: () => ['demo', '--timeout', '1e9'],
    message: /--timeout must be a whole number from 30 to 86400/,
  },
  { name: 'an unknown command', args: () => ['restore'], message: /unknown command 'restore'/ },
];
