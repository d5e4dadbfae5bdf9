import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Data flows one way: cli → Temporal → workflows → activities → api → service. The folders are layers, bottom up; a
// folder imports only from the layers below it, never from one above or beside it. test/ and bench/ drive the layers
// from outside (a colocated test may use test/'s helpers); scripts/ stand alone (the worker loads ensure-temporal).
const LAYERS = [
  ['contracts'],
  ['api'],
  ['runtime'],
  ['steps'],
  ['runbooks'],
  ['history'],
  // What every command shares: arguments, usage errors, help, the Temporal connection, starting and following runs.
  ['operator'],
  ['simulator'],
  ['worker'],
  // Leaves: only cli/run.ts loads them, lazily.
  ['console', 'demo'],
  ['cli'],
];
const ours = [...LAYERS.flat(), 'test', 'bench', 'scripts'];
const except = (...dirs) => ours.filter((d) => !dirs.includes(d)).map((d) => `./${d}`);
const layerZones = LAYERS.flatMap((layer, i) =>
  layer.flatMap((folder) => {
    const above = [...LAYERS.slice(i + 1).flat(), ...layer.filter((f) => f !== folder)];
    if (above.length === 0) return [];
    return {
      target: `./${folder}`,
      from: above.map((d) => `./${d}`),
      message: `${folder}/ imports only the layers below it (${LAYERS.slice(0, i).flat().join(', ') || 'none'}), never ${above.join(', ')}: see docs/development.md, "Layers".`,
    };
  }),
);
const zones = [
  ...layerZones,
  {
    target: './contracts',
    from: except('contracts'),
    message: 'contracts/ holds pure definitions every side imports: it imports nothing of ours.',
  },
  {
    target: './api',
    from: except('api'),
    message:
      'api/ is the service interface: it imports nothing of ours (the simulator imports api/, never the reverse).',
  },
  {
    target: ['./runbooks/*/activities.ts', './runbooks/activities.ts', './steps/**'],
    from: './runbooks/{*/workflow,workflows}.ts',
    message: 'Activities never import workflows: workflows call activities, not the reverse.',
  },
  {
    target: './history',
    from: ['./api', './steps'],
    message:
      'history/ reads what runs left on disk: it imports contracts/, runtime/ and the report types of runbooks/ (see below).',
  },
  {
    target: './console',
    from: './runbooks/{*/workflow,workflows}.ts',
    message: 'console/ reads Temporal and the reports: it imports no workflow code.',
  },
];

// Workflow code is bundled and replayed: value imports come only from this allowlist; anything else is type-only.
// import-x zones cannot tell a type import from a value one, typescript-eslint's rule can (allowTypeImports), so the
// allowlist is a pattern over relative specifiers, read from the workflow file's own folder.
const workflowMessage =
  'Workflow code value-imports only contracts/, api/dialect (the pure dialect tables), runtime/{calls,tracker,input-rules,metrics,evidence-timestamp-rules}, steps/job-watcher and steps/validation-desk (the workflow side of the job-batch and validation steps) and its own contract, report, expectations, windows, verdicts, slot book, bisection, plan, graph or rotation cadence, the snapshot-slot calls, the approval-gated restore contract and the retry of missing timestamps (dr-drill/timestamps); import anything else as a type.';
const relativeExcept = (allowed) => String.raw`^(?!(?:${allowed.join('|')})$)\.{1,2}/`;

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tools/', '.data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      // Fastify handlers and activities are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones }] },
  },
  {
    // The drill's workflow code spans a few files: its batches (child workflows) and what they share with it.
    files: [
      'runbooks/*/workflow.ts',
      'runbooks/dr-drill/{batch,drill-one,fan-out,fan-out-contract,patches,timestamps}.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: relativeExcept([
                String.raw`\./(?:contract|report|expectations|windows|verdicts|slot-book|bisect|plan|graph|rotation-cadence)`,
                String.raw`\./(?:batch|drill-one|fan-out|fan-out-contract|patches|timestamps)`,
                // Runbooks that take snapshots do so in slots of the shared limiter.
                String.raw`\.\./snapshot-slots/(?:calls|contract)`,
                // A recovery plan's restores tell it their end by the approval-gated restore's signal.
                String.raw`\.\./approval-gated-restore/contract`,
                // A report's missing timestamps are asked for later by the same run, whichever runbook sealed it.
                String.raw`\.\./dr-drill/timestamps`,
                String.raw`\.\./\.\./runtime/(?:calls|tracker|input-rules|metrics|evidence-timestamp-rules)`,
                String.raw`\.\./\.\./steps/(?:job-watcher|validation-desk)`,
                String.raw`\.\./\.\./contracts(?:/[\w-]+)?`,
                String.raw`\.\./\.\./api/dialect`,
              ]),
              allowTypeImports: true,
              message: workflowMessage,
            },
          ],
        },
      ],
    },
  },
  {
    // The history reads reports: it takes their types from runbooks/, never their code (no activity, no renderer).
    files: ['history/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`^(?:\.\./)+runbooks/`,
              allowTypeImports: true,
              message: 'history/ imports only the report types of runbooks/ (import type).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['runbooks/workflows.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: relativeExcept([
                String.raw`\./[\w-]+/workflow`,
                String.raw`\./dr-drill/(?:batch|timestamps)`,
                String.raw`\.\./runtime/metrics`,
              ]),
              allowTypeImports: true,
              // The tracing interceptors it exports come from @temporalio/interceptors-opentelemetry's workflow
              // module, a package import this pattern lets through.
              message: "runbooks/workflows.ts exports the runbooks' workflow.ts files, counted by runtime/metrics.",
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code is replayed: it must not reach the outside world.
    files: [
      'runbooks/*/workflow.ts',
      'runbooks/workflows.ts',
      'runtime/calls.ts',
      'steps/job-watcher.ts',
      'steps/validation-desk.ts',
      'runtime/metrics.ts',
      'runtime/evidence-timestamp-rules.ts',
      'contracts/**/*.ts',
      'api/dialect/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, 'undici', 'pino'].map((name) => ({
            name,
            message: 'Workflows are deterministic: do I/O in an activity.',
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
