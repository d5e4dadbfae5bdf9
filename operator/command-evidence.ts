import { flag, output, text, type CommandSpec, pathOption } from './command-spec';

/** Where the keys to check against come from: given out of band, or the folder's (verify, gate, oscal). */
const TRUSTED_KEYS_OPTIONS = [
  {
    name: 'public-key',
    value: 'file',
    placeholder: 'file',
    description: 'the key history (<key>.history.json) or a PEM public key, obtained out of band',
    multiple: true,
  },
  flag('trust-folder-keys', 'trust the keys beside the reports (a quick check, not an audit)'),
] as const;

/** `runbooks evidence …`, a part of the command table (operator/command-table.ts). */
export const EVIDENCE_COMMAND = {
  name: 'evidence',
  description: 'Verify signed drill reports, pack them for an auditor, and manage the key that signs them.',
  subcommands: [
    {
      name: 'verify',
      description: 'Check the seals and the chain of the drill reports in a folder, or an evidence pack.',
      usage: 'evidence verify <dir|pack.tar.gz> --public-key <file>... | --trust-folder-keys [--tsa-cert <file>]',
      argument: 'file',
      details: [
        '<dir> holds the drill reports, or is the output directory above drill-reports/. Without --public-key, verify',
        'refuses (exit 2): whoever can edit a report can replace the public key beside it.',
        'A pack (evidence pack) is checked file by file against its manifest, and each report against its seal;',
        'any change refuses it (exit 1), naming the file. --trust-folder-keys then trusts the keys inside the pack.',
        'Timestamp tokens (<file>.tsr) are checked against --tsa-cert: one that does not hold, or dates its seal more',
        'than 24 hours late, fails (exit 1). Each report says whether it is timestamped.',
      ],
      options: [
        ...TRUSTED_KEYS_OPTIONS,
        pathOption(
          'tsa-cert',
          'file',
          'file',
          "the time-stamping authority's certificate chain (PEM), obtained out of band",
        ),
      ],
      examples: [
        'runbooks evidence verify .data/output --public-key .data/evidence-signing-key.history.json',
        'runbooks evidence verify evidence-2026-q1.tar.gz --public-key .data/evidence-signing-key.history.json',
      ],
    },
    {
      name: 'gate',
      description:
        'Check that every resource in scope, and every recovery plan named, has a verified PASS within a period: exit 0 if so, else 1.',
      usage:
        'evidence gate --within <duration> | --control <id>... [--scope <file>] [--plan <name>...] [--dir <output dir>] --public-key <file>... | --trust-folder-keys [--require-timestamp --tsa-cert <file>] [-o text|json]',
      details: [
        'A resource passes when its newest drill within the period has a seal that verifies, in a chain that verifies,',
        'and its result there is PASS. Exit 1 names each other one and why: none, too old, failed, unsigned or chain',
        'broken. The scope: every resource the reports name, or --scope, a JSON file {"resources": ["<id>", ...]},',
        'or {"selection": {...}} with a drill\'s selection (tags, resourceTypes, accounts, regions, environments,',
        'include, exclude or all: true), resolved against the inventory of the configured service (BACKUP_SERVICE_URL,',
        'as the worker reads it) when the gate runs: a selection that takes no resource fails, and one that cannot be',
        'resolved (the service unreachable, its credentials refused) exits 3.',
        '--control judges a control of the catalogue (docs/evidence-packs.md) over its own period, unless --within:',
        'exit 1 names each control not satisfied, with the resources that lack a verified PASS and why.',
        'Without --public-key it refuses (exit 2), as verify does. --dir defaults to RUNBOOKS_OUTPUT_DIR.',
        '--require-timestamp counts a PASS only when its seal and attestations have tokens that verify against',
        '--tsa-cert (else: untimestamped).',
        '--plan <name> (repeatable, or comma-separated) asks that the recovery plan passed within the period too: its',
        'newest run within it verifies, every step passed and its RTO met its target. Exit 1 names the plan and why:',
        'none, too old, failed, RTO missed, unsigned or chain broken. With --plan and no --scope or --control, only',
        'the plans named are checked.',
      ],
      options: [
        text('within', 'duration', 'the period, back from now: 30d, 12h, 1d12h (with --control: instead of its own)'),
        {
          name: 'control',
          value: 'text',
          placeholder: 'id',
          description: 'a control ID of the catalogue, repeatable or comma-separated: iso27001-2022-a.8.13',
          multiple: true,
        },
        pathOption(
          'scope',
          'file',
          'file',
          'a JSON file of the resources to check: {"resources": [<id>...]} or {"selection": {<a drill\'s selection>}}',
        ),
        {
          name: 'plan',
          value: 'text',
          placeholder: 'name',
          description:
            'a recovery plan that must have passed, RTO met, within the period; repeatable or comma-separated',
          multiple: true,
        },
        pathOption('dir', 'dir', 'output dir', 'the output directory (default RUNBOOKS_OUTPUT_DIR)'),
        ...TRUSTED_KEYS_OPTIONS,
        flag('require-timestamp', 'a PASS counts only with verified timestamps (needs --tsa-cert)'),
        pathOption(
          'tsa-cert',
          'file',
          'file',
          "the time-stamping authority's certificate chain (PEM), obtained out of band",
        ),
        output,
      ],
      examples: [
        'runbooks evidence gate --within 30d --public-key .data/evidence-signing-key.history.json',
        'runbooks evidence gate --within 7d --public-key .data/evidence-signing-key.history.json -o json',
        'runbooks evidence gate --plan payments --within 30d --public-key .data/evidence-signing-key.history.json',
      ],
    },
    {
      name: 'score',
      description:
        'Compute the readiness score, 0 to 100, of the estate and of each drill, from the drill reports alone.',
      usage: 'evidence score [--dir <output dir|pack>] [--within <duration>] [--public-key <file>...] [-o text|json]',
      details: [
        'Four parts, each from 0 to 1, weighted to 100 (docs/operations/readiness.md publishes the formula): coverage',
        '(40: resources with a verified PASS within the period), pass share (30: resources whose newest result within',
        'the period is a verified PASS), RTO margin (20: the 95th percentile of RTO over target, full credit at half the',
        'target, none at the target) and freshness (10: the age of the newest verified recovery point against the RPO',
        'target). It prints every input, so that anyone holding the reports recomputes it. Only reports whose seal and',
        'chain verify count. --dir is an output folder, an evidence pack or its unpacked folder (default',
        "RUNBOOKS_OUTPUT_DIR); without --public-key the keys beside the reports (a pack's own keys) are used, as the",
        'console does: give the key history for an audit. --within defaults to 90d.',
      ],
      options: [
        pathOption(
          'dir',
          'dir',
          'output dir|pack',
          'the output directory or an evidence pack (default RUNBOOKS_OUTPUT_DIR)',
        ),
        text('within', 'duration', 'the period, back from now (default 90d): 30d, 12h, 1d12h'),
        {
          name: 'public-key',
          value: 'file',
          placeholder: 'file',
          description:
            'the key history or PEM public key to check the seals with (default: the keys beside the reports)',
          multiple: true,
        },
        output,
      ],
      examples: [
        'runbooks evidence score --dir .data/output',
        'runbooks evidence score --dir evidence-2026-q1.tar.gz --within 90d -o json',
      ],
    },
    {
      name: 'oscal',
      description: 'Write OSCAL assessment results: the verified drill reports against the control catalogue.',
      usage:
        'evidence oscal [--dir <output dir>] --public-key <file>... | --trust-folder-keys [--out <file>] [--within <duration>]',
      details: [
        'One observation per drill report whose seal and chain verify (with its sha256), one finding per control of',
        'the catalogue (docs/evidence-packs.md): satisfied when every resource the reports name has a verified PASS',
        "within the control's period, or --within for every control. Without --public-key it refuses (exit 2), as",
        'verify does. The document goes to standard output, or --out; notes go to standard error.',
      ],
      options: [
        pathOption('dir', 'dir', 'output dir', 'the output directory (default RUNBOOKS_OUTPUT_DIR)'),
        ...TRUSTED_KEYS_OPTIONS,
        pathOption('out', 'file', 'file', 'the OSCAL JSON file to write (default standard output)'),
        text('within', 'duration', "one period for every control instead of each control's own: 365d, 90d"),
      ],
      examples: [
        'runbooks evidence oscal --public-key .data/evidence-signing-key.history.json --out assessment-results.json',
      ],
    },
    {
      name: 'pack',
      description:
        'Bundle the drill and recovery plan reports of a period, their seals and a summary page into one file for an auditor.',
      usage:
        'evidence pack --from <date> --to <date> [--out <file.tar.gz>] [--dir <output dir>] [--public-key <file>...] [--by-control]',
      details: [
        'Dates are days (2026-01-01, UTC; --to counts whole) or ISO times with a zone. The pack holds the reports that',
        "finished in the period with their seals (drill-reports/, and the recovery plans' in plan-reports/), the public",
        'keys, verification.json, index.html (summary, each plan run with its verdict and RTO against its target, and',
        'trend charts) and manifest.json (the sha256 of every file). --dir defaults to RUNBOOKS_OUTPUT_DIR. A report',
        'that does not verify is packed all the same, and the command exits 1. See docs/evidence-packs.md.',
        '--by-control adds controls/: per control of the catalogue its period, the drills that satisfy it and its gaps.',
      ],
      options: [
        text('from', 'date', 'the first day (or time) of the period'),
        text('to', 'date', 'the last day (or the end time) of the period'),
        pathOption('out', 'file', 'file.tar.gz', 'the pack to write (default evidence-pack-<from>-to-<to>.tar.gz)'),
        pathOption('dir', 'dir', 'output dir', 'the output directory (default RUNBOOKS_OUTPUT_DIR)'),
        {
          name: 'public-key',
          value: 'file',
          placeholder: 'file',
          description:
            'the key history or PEM public key to check the seals with (default: the keys beside the reports)',
          multiple: true,
        },
        flag('by-control', 'lay the pack out per control as well: controls/<id>.json and .html, and an overview'),
      ],
      examples: ['runbooks evidence pack --from 2026-01-01 --to 2026-03-31 --out evidence-2026-q1.tar.gz'],
    },
    {
      name: 'key',
      description: 'Show the signing key and its history, or rotate it.',
      usage: 'evidence key show|rotate [--key-file <pem>]',
      argument: ['show', 'rotate'],
      details: [
        'The key: --key-file, else RUNBOOKS_EVIDENCE_KEY_FILE, else $RUNBOOKS_DATA_DIR/evidence-signing-key.pem.',
        'After a rotation, restart the workers: they sign with the key they loaded at start. Older reports still',
        'verify against the history, which is what auditors get.',
      ],
      options: [{ name: 'key-file', value: 'file', placeholder: 'pem', description: 'the signing key' }],
      examples: ['runbooks evidence key show', 'runbooks evidence key rotate'],
    },
  ],
  examples: ['runbooks evidence verify .data/output --public-key .data/evidence-signing-key.history.json'],
} as const satisfies CommandSpec;
