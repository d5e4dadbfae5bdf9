import { RUNBOOK_NAMES } from '../runbooks/registry';
import { OUTPUT_FORMATS, OUTPUT_OPTION_HELP } from './output';

/**
 * What a shell completes for an option's value or a positional argument: a runbook name, the ID of a running
 * workflow (asked of Temporal), a file, a directory, one of fixed words, or free text (nothing to offer).
 */
export type ValueKind = 'runbook' | 'workflowId' | 'drillId' | 'file' | 'dir' | 'text' | readonly string[];

export interface OptionSpec {
  name: string;
  /** The one-letter alias, as parseCommandLine's `short`. */
  short?: string;
  /** Absent for a flag (a boolean option). */
  value?: ValueKind;
  description: string;
}

export interface CommandSpec {
  name: string;
  description: string;
  options?: readonly OptionSpec[];
  /** The first positional argument, when the command takes one. */
  argument?: ValueKind;
  subcommands?: readonly CommandSpec[];
}

const DIALECTS = ['neutral', 'public'];
const text = (name: string, description: string): OptionSpec => ({ name, value: 'text', description });
const flag = (name: string, description: string): OptionSpec => ({ name, description });
const deployment = text('deployment', 'the Worker Deployment name');
const output: OptionSpec = { name: 'output', short: 'o', value: OUTPUT_FORMATS, description: OUTPUT_OPTION_HELP };

/**
 * Every command, its subcommands and options, as their parseCommandLine calls accept them: the one source the
 * completion scripts are generated from. A test compares it with cli/main.ts's commands and each module's options.
 */
export const COMPLETION_TABLE: readonly CommandSpec[] = [
  {
    name: 'start',
    description: 'start a runbook',
    argument: 'runbook',
    options: [
      { name: 'input', value: 'file', description: 'the input: a JSON file, inline JSON or - for stdin' },
      text('id', 'the workflow ID, instead of the one derived from the input'),
      flag('wait', 'wait for the result'),
    ],
  },
  {
    name: 'status',
    description: "a run's status",
    argument: 'workflowId',
    options: [flag('watch', 'follow the run until it closes'), output],
  },
  {
    name: 'list',
    description: 'recent runbook runs',
    options: [
      { name: 'runbook', value: 'runbook', description: 'runs of this runbook only' },
      text('limit', 'at most this many runs'),
      output,
    ],
  },
  { name: 'cancel', description: 'cancel a run', argument: 'workflowId' },
  { name: 'nudge', description: 'make a run check what it waits for now', argument: 'workflowId' },
  {
    name: 'inputs',
    description: "print a runbook's input JSON Schema, or an example input",
    argument: 'runbook',
    options: [
      flag('example', 'print a valid example input instead of the schema'),
      flag('discover', 'with drDrill --example: fill it with IDs found on the service'),
    ],
  },
  {
    name: 'drill',
    description: 'act on a running drill',
    subcommands: [
      {
        name: 'validate',
        description: 'give the verdict on a restored resource',
        argument: 'drillId',
        options: [
          text('resource', 'the restored resource'),
          { name: 'result', value: ['pass', 'fail'], description: 'the verdict' },
          text('message', 'kept in the report'),
        ],
      },
    ],
  },
  {
    name: 'approvals',
    description: 'restores waiting for approval',
    options: [output, flag('json', 'the same as --output json'), text('limit', 'at most this many')],
  },
  {
    name: 'schedule',
    description: 'schedules that start runbooks',
    subcommands: [
      {
        name: 'create',
        description: 'create a schedule',
        argument: 'text',
        options: [
          { name: 'runbook', value: 'runbook', description: 'the runbook to start' },
          text('cron', 'when, as a cron expression'),
          { name: 'input', value: 'file', description: 'the input: a JSON file or inline JSON' },
          text('timezone', 'the time zone of the cron expression'),
          flag('paused', 'create it paused'),
        ],
      },
      { name: 'list', description: 'the schedules', options: [output] },
      { name: 'delete', description: 'delete a schedule', argument: 'text' },
      { name: 'trigger', description: 'start a schedule now', argument: 'text' },
    ],
  },
  {
    name: 'deployment',
    description: "the Worker Deployment's versions",
    subcommands: [
      { name: 'status', description: 'versions, routing and drainage', options: [deployment, output] },
      {
        name: 'promote',
        description: 'make a build current, or ramp it',
        argument: 'text',
        options: [deployment, text('ramp', 'the percentage of new runs')],
      },
      {
        name: 'move',
        description: "move a version's runs",
        argument: 'text',
        options: [deployment, text('to', 'the build ID to pin them to')],
      },
    ],
  },
  {
    name: 'simulator',
    description: 'run the Backup Management Service simulator',
    options: [
      text('port', 'the port (0: any free port)'),
      text('host', 'the address to listen on'),
      { name: 'data-dir', value: 'dir', description: 'where to keep its state' },
      text('seed', 'the seed of its generated data'),
      text('prefix', 'a path prefix such as /api'),
      text('token-ttl', 'the lifetime of its tokens, in seconds'),
      {
        name: 'log-level',
        value: ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'],
        description: 'the log level',
      },
      { name: 'dialect', value: DIALECTS, description: 'the vocabulary it speaks' },
      text('fault-rate', 'the share of requests that fail (0..1)'),
      text('fault-kinds', 'the kinds of fault, comma-separated'),
      text('fault-latency-ms', 'the latency of a fault'),
      text('fault-retry-after', 'the Retry-After of a fault, in seconds'),
      text('fault-path-prefix', 'faults on these paths only'),
      {
        name: 'fault-method',
        value: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        description: 'faults on this method only',
      },
      text('fault-times', 'at most this many faults'),
    ],
  },
  {
    name: 'codec-server',
    description: "decode payloads for Temporal's UI",
    options: [
      text('port', 'the port'),
      text('host', 'the address to listen on'),
      text('allow-origin', 'the UI origin allowed to call it'),
      text('allow-host', 'another Host header to accept'),
      flag('allow-encode', 'answer /encode too'),
    ],
  },
  {
    name: 'evidence',
    description: 'signed drill reports',
    subcommands: [
      {
        name: 'verify',
        description: 'check the signatures of drill reports',
        argument: 'dir',
        options: [
          { name: 'public-key', value: 'file', description: 'the key history or a PEM public key' },
          flag('trust-folder-keys', 'trust the keys beside the reports (not an audit)'),
        ],
      },
      {
        name: 'key',
        description: 'show or rotate the signing key',
        argument: ['show', 'rotate'],
        options: [{ name: 'key-file', value: 'file', description: 'the signing key' }],
      },
    ],
  },
  {
    name: 'demo',
    description: 'run every kind of runbook against a simulator',
    options: [
      text('timeout', 'the time the runbooks may take, in seconds'),
      { name: 'dialect', value: DIALECTS, description: "the simulator's vocabulary" },
    ],
  },
  {
    name: 'doctor',
    description: 'check the configuration, Temporal and the service',
    options: [
      flag('json', 'as JSON'),
      text('service-url', 'the service to check'),
      text('restore-account', 'a restore account to check (repeatable)'),
      text('timeout', 'seconds per check'),
    ],
  },
  {
    name: 'completion',
    description: 'print a shell completion script',
    argument: ['bash', 'zsh', 'fish'],
  },
];

/** Runbook names, as `start` and `--runbook` complete them. */
export const COMPLETED_RUNBOOKS: readonly string[] = RUNBOOK_NAMES;
