import { flag, output, text, type CommandAt, type CommandSpec, type PathOf, pathOption } from './command-spec';
import { EVIDENCE_COMMAND } from './command-evidence';
import { SCHEDULE_COMMAND } from './command-schedule';

const DIALECTS = ['neutral', 'public'];
/** The Web UI that `codec-server` lets call it by default (cli/codec-server.ts falls back to it too). */
export const DEFAULT_ALLOWED_ORIGIN = 'http://localhost:8233';
const deployment = text('deployment', 'name', 'the Worker Deployment (default RUNBOOKS_DEPLOYMENT_NAME)');

/**
 * Every command, its subcommands and options: the one source of the help texts, the completion scripts and what each
 * command's parser accepts (operator/args.ts). `as const` keeps the names that type each command's parsed options.
 */
const TABLE = [
  {
    name: 'start',
    description: 'Start a runbook with an input, and print its workflow ID.',
    usage: 'start <runbook> [--input <file|json|->] [--id <workflowId>] [--wait]',
    argument: 'runbook',
    details: [
      'The input is validated before anything is sent; `runbooks inputs <runbook>` prints its schema and an example.',
      'With --wait, a run that fails, or a drill that does not pass, exits 4.',
    ],
    options: [
      pathOption('input', 'file', 'file|json|-', 'the input: a JSON file, inline JSON or - for standard input'),
      text('id', 'workflowId', 'the workflow ID, instead of the one derived from the input'),
      flag('wait', 'follow the run and print its result'),
    ],
    examples: [
      'runbooks inputs drDrill --example --discover > drill.json && runbooks start drDrill --input drill.json --wait',
      `runbooks start costExport --input '{"window":"previous-day"}'`,
    ],
  },
  {
    name: 'inputs',
    description: "Print a runbook's input as JSON Schema, or a valid example input.",
    usage: 'inputs <runbook> [--example [<name>] [--discover]]',
    argument: 'runbook',
    details: [
      'The schema is generated from the one that validates the input, so the two cannot drift.',
      '--discover reads the configured service (BACKUP_SERVICE_URL and its credentials, as the worker; else the',
      'simulator that `npm start` runs) for the IDs a drDrill, approvalGatedRestore or queryExport example names:',
      'restore accounts, vaults, resources and their snapshots.',
    ],
    options: [
      flag('example', 'print a valid example input instead of the schema; <name>: one of its named examples'),
      flag('discover', 'with --example: fill it with IDs found on the service'),
    ],
    examples: [
      'runbooks inputs drDrill --example --discover > drill.json',
      'runbooks inputs costExport > costExport.schema.json',
    ],
  },
  {
    name: 'status',
    description: "Show a run's state, phase and progress, and its result once it closed.",
    usage: 'status <workflowId> [--watch] [-o text|json]',
    argument: 'workflowId',
    details: ['With --watch -o json, it prints one document once the run closes.'],
    options: [flag('watch', 'follow the run until it closes'), output],
    examples: ['runbooks status dr-drill-nightly --watch', 'runbooks status dr-drill-nightly -o json'],
  },
  {
    name: 'list',
    description: 'List recent runbook runs, newest first.',
    usage: 'list [--runbook <name>] [--limit <n>] [-o text|json]',
    options: [
      { name: 'runbook', value: 'runbook', placeholder: 'name', description: 'runs of this runbook only' },
      { ...text('limit', 'n', 'at most this many runs (default 20)'), default: '20' },
      output,
    ],
    examples: ['runbooks list', 'runbooks list --runbook drDrill --limit 5'],
  },
  {
    name: 'cancel',
    description: 'Cancel a run; it stops what it started on the service before it ends.',
    usage: 'cancel <workflowId>',
    argument: 'workflowId',
    examples: ['runbooks cancel restore-orders-db-2026-11-25'],
  },
  {
    name: 'nudge',
    description: 'Make a waiting run check what it waits for now (an approval, a job) instead of at its next look.',
    usage: 'nudge <workflowId>',
    argument: 'workflowId',
    examples: ['runbooks nudge restore-orders-db-2026-11-25'],
  },
  {
    name: 'drill',
    description: 'Act on a running drill.',
    subcommands: [
      {
        name: 'validate',
        description: 'Give the verdict on a restored resource that a drill waits for.',
        usage: 'drill validate <workflowId> --resource <id> [--snapshot <id>] --result pass|fail [--message <text>]',
        argument: 'drillId',
        details: [
          'The drill waits for it when its input has `validation`. Exit 1 when the drill does not take it, saying why.',
          'A clean-point search by validation takes it too, with --snapshot naming the point restored.',
        ],
        options: [
          text('resource', 'id', 'the restored resource, by its ID in the drill'),
          text('snapshot', 'id', 'the restored snapshot (a clean-point search asks for it)'),
          { name: 'result', value: ['pass', 'fail'], description: 'the verdict' },
          text('message', 'text', 'what was checked, kept in the report (at most 1,000 characters)'),
        ],
        examples: [
          "runbooks drill validate dr-drill-nightly --resource crm-bucket-02 --result pass --message 'objects listed'",
        ],
      },
    ],
    examples: ['runbooks drill validate dr-drill-nightly --resource crm-bucket-02 --result fail'],
  },
  {
    name: 'clean-point',
    description: "Find a database resource's last clean recovery point: the newest snapshot that passes a check.",
    usage:
      'clean-point <resourceId> --check|--validation <file|json|-> [--restore-account <id>] [--window <N>d] [--before <time>] [-o text|json]',
    argument: 'text',
    details: [
      'It starts the cleanPoint runbook, follows it and prints the points it examined (docs/runbooks/clean-point.md).',
      'The check (name, databaseName, destination, queries) is validated before anything connects. For a resource',
      'the query call cannot reach, --validation (name, destination, windowHours, maxRestores) restores each point',
      'probed and waits for `runbooks drill validate` on it, within its budget of restores. Without',
      '--restore-account, the one restore account that allows restores on the configured service is used',
      '(BACKUP_SERVICE_URL and its credentials, as the worker; else the simulator that `npm start` runs).',
      'Exit 0 when a clean point was found; 4 when no point of the window is clean, or the run failed.',
    ],
    options: [
      pathOption('check', 'file', 'file|json|-', 'the check: a JSON file, inline JSON or - for standard input'),
      pathOption('validation', 'file', 'file|json|-', 'or the validation of a restore of each point probed'),
      text('restore-account', 'id', 'the restore account the queries run under (default: the one allowed)'),
      { ...text('window', 'Nd', 'how far back to look, in days: 1d to 366d (default 30d)'), default: '30d' },
      text('before', 'time', 'the end of the window, an ISO 8601 time (default: when the search starts)'),
      output,
    ],
    examples: [
      'runbooks clean-point orders-db --check orders-check.json --window 14d',
      'runbooks clean-point orders-db --check orders-check.json --restore-account ra-prod-01 -o json',
      'runbooks clean-point media-bucket --validation media-validation.json --window 14d',
    ],
  },
  {
    name: 'plan',
    description: "Run an application's recovery plan: steps with dependencies, one point in time, one RTO.",
    details: ['The recoveryPlan runbook runs the plan; examples/plans/payments.json is one to start from.'],
    subcommands: [
      {
        name: 'validate',
        description: 'Check a recovery plan and print its steps in the order they run; nothing connects.',
        usage: 'plan validate <file|json|->',
        argument: 'file',
        details: [
          'The plan is the `plan` of the runbook input: a JSON file, inline JSON or - for standard input. Every',
          'problem is listed with its field (plan.steps.3.after.0): unknown steps, cycles, a bad step. Exit 2 when any.',
        ],
        examples: ['runbooks plan validate examples/plans/payments.json'],
      },
      {
        name: 'start',
        description: 'Start a recovery plan, and print its workflow ID.',
        usage: 'plan start <file|json|-> [--mode drill|recover] [--confirm <text>] [--id <workflowId>] [--wait]',
        argument: 'file',
        details: [
          'A drill (the default) restores into destinations of its own; --mode recover restores where the plan says,',
          "and needs --confirm 'recover <plan name>'. With --wait, exit 4 when the plan's verdict is FAIL.",
        ],
        options: [
          {
            name: 'mode',
            value: ['drill', 'recover'],
            default: 'drill',
            description: 'drill (the default): into destinations of its own; recover: the real thing',
          },
          text('confirm', 'text', "with --mode recover: 'recover <plan name>'"),
          text('id', 'workflowId', 'the workflow ID, instead of the one derived from the plan'),
          flag('wait', "follow the run and print the plan's verdict"),
        ],
        examples: ['runbooks plan start examples/plans/payments.json --wait'],
      },
      {
        name: 'status',
        description: "Show a plan's steps: kind, status, dependencies, times and reasons, in the order they run.",
        usage: 'plan status <workflowId> [-o text|json]',
        argument: 'workflowId',
        options: [output],
        examples: ['runbooks plan status plan-payments-drill-2026-11-29'],
      },
      {
        name: 'confirm',
        description: 'Confirm a manual step that a running plan waits for.',
        usage: 'plan confirm <workflowId> --step <id> --by <name> [--note <text>]',
        argument: 'workflowId',
        details: [
          'Exit 1 when the plan does not take it (the step does not wait, or --by is not an approver), saying why.',
        ],
        options: [
          text('step', 'id', 'the manual step, by its id in the plan'),
          text('by', 'name', 'who confirms it: one of its approvers, when it names some'),
          text('note', 'text', 'what was done, kept in the report (at most 1,000 characters)'),
        ],
        examples: [
          "runbooks plan confirm plan-payments-drill-2026-11-29 --step dns --by oncall-lead --note 'DNS moved'",
        ],
      },
    ],
    examples: ['runbooks plan validate examples/plans/payments.json'],
  },
  {
    name: 'coverage',
    description: 'Show when each resource in scope last passed a drill whose report verifies, and when it is next due.',
    usage:
      'coverage [--dir <output dir>] [--within <duration>] [--drill <name>] [--public-key <file>...] [-o text|json]',
    details: [
      'Overdue resources first: a resource is covered when its last verified PASS is within the period (default 90d),',
      'overdue when it is older, due now when it never passed. Only reports whose seal and chain verify count. The',
      "scope: every resource the reports name, or with --drill, the resources of that drill's reports. Without",
      '--public-key the keys beside the reports are used, as the console does. --dir defaults to RUNBOOKS_OUTPUT_DIR.',
    ],
    options: [
      pathOption('dir', 'dir', 'output dir', 'the output directory (default RUNBOOKS_OUTPUT_DIR)'),
      text('within', 'duration', 'the period every resource must pass within (default 90d): 30d, 12h, 1d12h'),
      text('drill', 'name', "only this drill's reports and the resources they name"),
      {
        name: 'public-key',
        value: 'file',
        placeholder: 'file',
        description: 'the key history or PEM public key to check the seals with (default: the keys beside the reports)',
        multiple: true,
      },
      output,
    ],
    examples: [
      'runbooks coverage --dir .data/output',
      'runbooks coverage --dir .data/output --within 30d --drill nightly -o json',
    ],
  },
  {
    name: 'approvals',
    description: 'List the restores waiting for approval, with their age, deadline and approvals so far.',
    usage: 'approvals [--limit <n>] [-o text|json]',
    options: [
      { ...text('limit', 'n', 'at most this many (default 100)'), default: '100' },
      output,
      flag('json', 'the same as --output json'),
    ],
    examples: ['runbooks approvals', 'runbooks approvals -o json'],
  },
  SCHEDULE_COMMAND,
  {
    name: 'deployment',
    description: "Show and route the Worker Deployment's versions (builds).",
    subcommands: [
      {
        name: 'status',
        description: 'Show the versions, the routing, and which versions still have runs.',
        usage: 'deployment status [--deployment <name>] [-o text|json]',
        options: [deployment, output],
        examples: ['runbooks deployment status', 'runbooks deployment status -o json'],
      },
      {
        name: 'promote',
        description: 'Make a build current, or ramp new runs to it.',
        usage: 'deployment promote <buildId> [--ramp <percent>] [--deployment <name>]',
        argument: 'text',
        options: [deployment, text('ramp', 'percent', 'send this percentage of new runs to the build')],
        examples: ['runbooks deployment promote 2026.11.25 --ramp 10', 'runbooks deployment promote 2026.11.25'],
      },
      {
        name: 'move',
        description: "Move a version's running workflows to another build.",
        usage: 'deployment move <fromBuildId> [--to <buildId>] [--deployment <name>]',
        argument: 'text',
        options: [deployment, text('to', 'buildId', 'the build to pin them to (default the current one)')],
        examples: ['runbooks deployment move 2026.11.18 --to 2026.11.25'],
      },
    ],
    examples: ['runbooks deployment status'],
  },
  {
    name: 'simulator',
    description: 'Run a simulator of the Backup Management Service.',
    usage:
      'simulator [--port <port>] [--host <address>] [--data-dir <dir>] [--seed <n>] [--prefix <path>] [--dialect neutral|public] [--fault-… …]',
    details: [
      'It serves the interface with generated data until SIGINT or SIGTERM; faults (--fault-*) exercise retries.',
    ],
    options: [
      { ...text('port', 'port', 'the port (default 0: any free port)'), default: '0' },
      { ...text('host', 'address', 'the address to listen on (default 127.0.0.1)'), default: '127.0.0.1' },
      { name: 'data-dir', value: 'dir', placeholder: 'dir', description: 'where to keep its state' },
      { ...text('seed', 'n', 'the seed of its generated data (default 1)'), default: '1' },
      { ...text('prefix', 'path', 'a path prefix such as /api'), default: '' },
      { ...text('token-ttl', 'seconds', 'the lifetime of its tokens (default 43200)'), default: '43200' },
      {
        name: 'log-level',
        value: ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'],
        default: 'silent',
        description: 'the log level (default silent)',
      },
      {
        name: 'dialect',
        value: DIALECTS,
        default: 'neutral',
        description: 'the vocabulary it speaks (default neutral)',
      },
      text('fault-rate', '0..1', 'the share of requests that fail'),
      text('fault-kinds', 'kinds', 'the kinds of fault, comma-separated'),
      text('fault-latency-ms', 'ms', 'the latency of a latency fault'),
      text('fault-retry-after', 'seconds', 'the Retry-After of a 429 or 503 fault'),
      text('fault-path-prefix', 'path', 'faults on these paths only'),
      {
        name: 'fault-method',
        value: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        description: 'faults on this method only',
      },
      text('fault-times', 'n', 'at most this many faults'),
    ],
    examples: ['runbooks simulator --port 8080', 'runbooks simulator --port 8080 --fault-rate 0.1 --fault-kinds 429'],
  },
  {
    name: 'codec-server',
    description: "Decrypt payloads for Temporal's Web UI with the workers' codec keys.",
    usage:
      'codec-server [--port <port>] [--host <address>] [--token-file <file>] [--behind-proxy] [--allow-origin <url|*>] [--allow-host <name[:port]>]... [--allow-encode]',
    details: [
      'Keys: RUNBOOKS_CODEC_KEY or RUNBOOKS_CODEC_KEYS_FILE (as the worker). The token (RUNBOOKS_CODEC_SERVER_TOKEN, or',
      "--token-file, RUNBOOKS_CODEC_SERVER_TOKEN_FILE) must come in each request's Authorization header; it is required",
      "with --allow-origin '*' and off localhost unless --behind-proxy. Requests must name this server, the allowed",
      'origin or an --allow-host in their Host header, and be application/json within the limits of docs/security.md.',
    ],
    options: [
      { ...text('port', 'port', 'the port (default 8888)'), default: '8888' },
      { ...text('host', 'address', 'the address to listen on (default 127.0.0.1)'), default: '127.0.0.1' },
      {
        ...text('allow-origin', 'url|*', `the UI origin allowed to call it (default ${DEFAULT_ALLOWED_ORIGIN})`),
        default: DEFAULT_ALLOWED_ORIGIN,
      },
      pathOption(
        'token-file',
        'file',
        'file',
        'a file holding the bearer token every request needs (instead of RUNBOOKS_CODEC_SERVER_TOKEN)',
      ),
      flag('behind-proxy', 'a proxy in front authenticates every request: no token needed off localhost'),
      { ...text('allow-host', 'name[:port]', 'another Host header to accept (repeatable)'), multiple: true },
      flag('allow-encode', 'serve POST /encode too'),
    ],
    examples: ['runbooks codec-server', 'runbooks codec-server --allow-origin https://temporal.example.com'],
  },
  {
    name: 'serve',
    description: 'Serve the web console: runs, approvals (with a nudge), drills, posture and exports, on 127.0.0.1.',
    usage:
      'serve [--port <port>] [--host <address>] [--token-file <file>] [--behind-proxy] [--temporal-ui <url>] [--dir <dir>] [--public-key <file>]...',
    details: [
      'Off localhost it needs a token (--token-file, RUNBOOKS_CONSOLE_TOKEN_FILE) or --behind-proxy, when your proxy',
      'authenticates every request. Also RUNBOOKS_CONSOLE_HOST, RUNBOOKS_CONSOLE_PORT. Reports: --dir, else',
      'RUNBOOKS_OUTPUT_DIR, else $RUNBOOKS_DATA_DIR/output. See docs/console.md.',
    ],
    options: [
      text('port', 'port', 'the port (default 8090)'),
      text('host', 'address', 'the address to listen on (default 127.0.0.1)'),
      pathOption('token-file', 'file', 'file', 'a file holding the bearer token every request needs'),
      flag('behind-proxy', 'a proxy in front authenticates every request: no token needed off localhost'),
      text('temporal-ui', 'url', "the Temporal Web UI to link runs to (default the dev server's, when known)"),
      { name: 'dir', value: 'dir', placeholder: 'dir', description: 'the output folder the reports are read from' },
      {
        name: 'public-key',
        value: 'file',
        placeholder: 'file',
        description: "the key history or PEM public key to check the drills' seals against (repeatable)",
        multiple: true,
      },
    ],
    examples: ['runbooks serve', 'runbooks serve --host 0.0.0.0 --token-file /run/secrets/console-token'],
  },
  EVIDENCE_COMMAND,
  {
    name: 'demo',
    description: 'Run every kind of runbook end to end against a simulator, and print what each did.',
    usage: 'demo [--timeout <seconds>] [--dialect neutral|public] [--serve] [--port <port>]',
    details: [
      'It starts what it needs that is not running: the Temporal dev server, the simulator and a worker.',
      'With --serve it keeps them up once the runbooks are done and serves the web console over their runs and',
      'reports, on 127.0.0.1, until Ctrl-C.',
    ],
    options: [
      {
        ...text('timeout', 'seconds', 'the time the runbooks may take once the stack is up (default 270)'),
        default: '270',
      },
      {
        name: 'dialect',
        value: DIALECTS,
        default: 'neutral',
        description: "the simulator's vocabulary (default neutral; public speaks as the real service does)",
      },
      flag('serve', "then serve the console over the demo's runs until Ctrl-C"),
      text('port', 'port', "the console's port with --serve (default 8090)"),
    ],
    examples: ['runbooks demo', 'runbooks demo --dialect public', 'runbooks demo --serve'],
  },
  {
    name: 'doctor',
    description: 'Check the configuration, Temporal and the service before a first real run.',
    usage: 'doctor [--json] [--service-url <url>] [--restore-account <id>]... [--timeout <seconds>]',
    details: [
      "The service: the token, the clock skew, the dialect, each runbook's permissions, restore accounts, vaults.",
      'Temporal: the namespace, the search attributes, the worker deployment and the pollers. Exit 1 when a check',
      'fails; warnings exit 0.',
    ],
    options: [
      flag('json', 'print the report as JSON'),
      text('service-url', 'url', 'check the service (or a simulator) at this URL instead of the configured one'),
      {
        ...text('restore-account', 'id', 'a restore account the runbooks use: connected and allowed (repeatable)'),
        multiple: true,
      },
      { ...text('timeout', 'seconds', 'the time each check may take (default 10)'), default: '10' },
    ],
    examples: ['runbooks doctor', 'runbooks doctor --restore-account ra-prod-01 --json'],
  },
  {
    name: 'completion',
    description: 'Print a shell script that completes commands, options, runbook names and running workflow IDs.',
    usage: 'completion bash|zsh|fish',
    argument: ['bash', 'zsh', 'fish'],
    details: ['Workflow IDs for status, cancel, nudge and drill validate are asked of Temporal, when it is reachable.'],
    // What the scripts run for workflow IDs (cli/completion-scripts.ts).
    options: [
      { ...flag('workflow-ids', 'print the IDs of running workflows'), hidden: true },
      { name: 'runbook', value: 'runbook', description: 'of this runbook only', hidden: true },
    ],
    examples: [
      'source <(runbooks completion bash)  # bash, this shell; add it to ~/.bashrc',
      'runbooks completion fish > ~/.config/fish/completions/runbooks.fish',
    ],
  },
] as const satisfies readonly CommandSpec[];

type Table = (typeof TABLE)[number];

/** The table, read as plain specs (help, completion). */
export const COMMAND_TABLE: readonly CommandSpec[] = TABLE;

/** A top-level command's name. */
export type CommandName = Table['name'];

/** A command or subcommand by its path: `start`, `schedule`, `schedule create`. */
export type CommandPath = PathOf<Table>;

/** The spec at a path, as the table declares it. */
export type CommandSpecAt<P extends CommandPath> = CommandAt<Table, P>;

/** The command or subcommand at a path such as `schedule create`. */
export function commandSpec<P extends CommandPath>(path: P): CommandSpecAt<P> {
  let found: CommandSpec = { name: '', description: '', subcommands: COMMAND_TABLE };
  for (const name of path.split(' ')) {
    const next = found.subcommands?.find((s) => s.name === name);
    if (!next) throw new Error(`no command '${path}' in the command table`);
    found = next;
  }
  // The loop walks the path that CommandAt walks in the table's type: this is the entry that type names.
  return found as CommandSpecAt<P>;
}
