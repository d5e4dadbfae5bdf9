// The input schemas and examples: schemas/ and examples/ are what `npm run schemas` writes, every example is valid
// by the JSON Schema an editor uses and by the zod input the runbook checks, and a broken copy is refused by both.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { inputJsonSchema, RUNBOOKS_WITH_INPUT, withoutSchemaKey } from '../../operator/input-schemas';
import { validateRunbookInput, exampleInput, exampleNames, namedExample } from '../../operator/runbooks';
import { examplePath, inputFiles } from '../../cli/write-input-files';
import { InventoryResource } from '../../api/schemas/inventory';
import { RUNBOOK_NAMES, RUNBOOKS, type RunbookName } from '../../runbooks/registry';
import { runCliFromSource } from '../helpers/cli-from-source';
import { resourceTypesOf } from '../../api/dialect';

const ROOT = resolve(__dirname, '..', '..');
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
const validatorOf = (runbook: RunbookName) => ajv.compile(inputJsonSchema(runbook));
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;

/** One way to break each example that both the JSON Schema and zod must refuse. */
const BROKEN: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
  approvalGatedRestore: (input) => ({ ...input, kind: 'everything' }),
  drDrill: (input) => ({ ...input, targets: { rpoSeconds: 0, rtoSeconds: 3600 } }),
  queryExport: (input) => ({ ...input, fileName: 'orders results.csv' }),
  costExport: (input) => ({ ...input, format: 'xlsx' }),
  offboardSourceAccount: (input) => ({ ...input, account: 'acct-0001' }),
  postureReport: (input) => ({ ...input, pageSize: 0 }),
  cleanPoint: (input) => ({ ...input, windowDays: 0 }),
  recoveryPlan: (input) => ({ ...input, mode: 'restore-everything' }),
};

test('schemas/ and examples/ are what `npm run schemas` writes', () => {
  for (const [path, text] of inputFiles()) {
    const onDisk = readFileSync(join(ROOT, path), 'utf8');
    if (onDisk !== text) throw new Error(`${path} is out of date: run \`npm run schemas\` and commit the result`);
  }
  const generated = [...inputFiles().keys()].sort();
  const present = ['schemas', 'examples'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      // examples/plans/ holds recovery plans, written by hand: no runbook's input.
      .filter((entry) => entry.isFile())
      .map((entry) => `${dir}/${entry.name}`),
  );
  expect(present.sort()).toEqual(generated);
});

test('every runbook that takes an input has an example; one that takes none has neither schema nor example', () => {
  expect(RUNBOOKS_WITH_INPUT.length).toBeGreaterThan(0);
  for (const runbook of RUNBOOK_NAMES) {
    expect([runbook, exampleInput(runbook) !== undefined]).toEqual([runbook, RUNBOOKS[runbook].takesInput]);
  }
  expect(Object.keys(BROKEN).sort()).toEqual([...RUNBOOKS_WITH_INPUT].sort());
});

test("a runbook's named examples are named for a file, and only a runbook that takes an input has any", () => {
  for (const runbook of RUNBOOK_NAMES) {
    const names = exampleNames(runbook);
    if (!RUNBOOKS[runbook].takesInput) expect([runbook, names]).toEqual([runbook, []]);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
  }
  expect(exampleNames('drDrill')).toContain('latest-clean');
});

/** Every example file: each runbook's default one, and its named ones. */
const EXAMPLE_FILES = RUNBOOKS_WITH_INPUT.flatMap((runbook): [string, RunbookName, string | undefined][] => [
  [examplePath(runbook), runbook, undefined],
  ...exampleNames(runbook).map((name): [string, RunbookName, string] => [examplePath(runbook, name), runbook, name]),
]);

describe.each(EXAMPLE_FILES)('%s', (path, runbook, name) => {
  const file = readJson(path);

  test('is the example of the contract', () => {
    expect(withoutSchemaKey(file)).toEqual(name === undefined ? exampleInput(runbook) : namedExample(runbook, name));
  });

  test('points at its schema, which validates it', () => {
    expect(file.$schema).toBe(`../schemas/${runbook}.json`);
    const validate = validatorOf(runbook);
    expect([validate(file), validate.errors]).toEqual([true, null]);
  });

  test('is valid for the runbook as the CLI reads it (the $schema key dropped)', () => {
    expect(RUNBOOKS[runbook].input.safeParse(file).success).toBe(false);
    expect(RUNBOOKS[runbook].input.safeParse(withoutSchemaKey(file)).error).toBeUndefined();
    expect(validateRunbookInput(runbook, file).args).toEqual([withoutSchemaKey(file)]);
  });

  test('a broken copy is refused by the schema and by the runbook', () => {
    const broken = BROKEN[runbook]?.(file) ?? file;
    expect(validatorOf(runbook)(broken)).toBe(false);
    expect(() => validateRunbookInput(runbook, broken)).toThrow(`invalid input for ${runbook}`);
  });
});

describe('a refused input', () => {
  const refusal = (runbook: RunbookName, input: unknown) => {
    try {
      validateRunbookInput(runbook, input);
    } catch (err) {
      return (err as Error).message.split('\n');
    }
    throw new Error('the input was taken');
  };
  const drill = exampleInput('drDrill');

  test('names the path, the allowed values and what was given, and points at runbooks inputs', () => {
    expect(refusal('drDrill', { ...drill, recoveryPoint: { select: 'newest' } })).toEqual([
      'invalid input for drDrill; nothing was started:',
      `  recoveryPoint.select: unknown value 'newest' (known values: latest, random, fresh, latest-clean); got "newest"`,
      'see: runbooks inputs drDrill (its JSON Schema) or runbooks inputs drDrill --example',
    ]);
  });

  test('says a missing field is required, and what a field of the wrong type should be', () => {
    const { vaultId: _vaultId, ...withoutVault } = drill ?? {};
    expect(refusal('drDrill', { ...withoutVault, parallelism: '3' }).slice(1, 3)).toEqual([
      '  vaultId: required (expected string)',
      '  parallelism: expected number, got string "3"',
    ]);
  });
});

describe("a value of the service's enums this release does not know", () => {
  const posture = { ...exampleInput('postureReport'), filters: { resourceType: { in: ['PA_VMM'] } } };

  test('is refused naming the field, the value and the closest known one', () => {
    expect(() => validateRunbookInput('postureReport', posture)).toThrow(
      "filters.resourceType.in.0: unknown value 'PA_VMM' (did you mean 'PA_VM'?)",
    );
    const restore = { ...exampleInput('costExport'), options: { costUnit: 'USDD' } };
    expect(() => validateRunbookInput('costExport', restore)).toThrow(
      "options.costUnit: unknown value 'USDD' (did you mean 'USD'?)",
    );
    // The workflow checks its input with the same schema, and says the same.
    const result = RUNBOOKS.postureReport.input.safeParse({ ...posture, filters: { environment: { in: ['PRD'] } } });
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message.split(';')[0]])).toEqual([
      ['filters.environment.in.0', "unknown value 'PRD' (did you mean 'PROD'?)"],
    ]);
  });

  test('is taken with allowUnknownValues: true, which the JSON Schema of every runbook with an input names', () => {
    const taken = RUNBOOKS.postureReport.input.safeParse({ ...posture, allowUnknownValues: true });
    expect(taken.data).toMatchObject({ filters: { resourceType: { in: ['PA_VMM'] } } });
    // The CLI takes it too, and says what it took on the input's word.
    const warn = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      validateRunbookInput('postureReport', { ...posture, allowUnknownValues: true });
      expect(warn.mock.calls).toEqual([
        ["warning: filters.resourceType.in.0: unknown value 'PA_VMM' (did you mean 'PA_VM'?), taken as given"],
      ]);
    } finally {
      warn.mockRestore();
    }
    expect(() => validateRunbookInput('postureReport', { ...posture, allowUnknownValues: false })).toThrow('PA_VMM');
    expect(() => validateRunbookInput('postureReport', { ...posture, allowUnknownValues: 'yes' })).toThrow(
      'allowUnknownValues: must be true or false',
    );
    for (const runbook of RUNBOOKS_WITH_INPUT) {
      const example = { ...exampleInput(runbook), allowUnknownValues: true };
      expect([runbook, validatorOf(runbook)(example)]).toEqual([runbook, true]);
      expect([runbook, RUNBOOKS[runbook].input.safeParse(example).success]).toEqual([runbook, true]);
    }
  });

  const RESOURCE = {
    id: 'res-1',
    backupStatus: 'A_NEW_STATUS',
    providerResourceId: 'i-1',
    resourceName: 'web',
    providerAccountId: '111',
    snapshotStorage: {},
    sourceStorage: {},
    tags: {},
    region: 'pa-east-1',
  };

  test('in a response still decodes: the service may add values at any time', () => {
    const resource = InventoryResource.parse({ ...RESOURCE, resourceType: 'PA_BRAND_NEW', cloudProvider: 'NEWCLOUD' });
    expect([resource.resourceType, resource.cloudProvider, resource.backupStatus]).toEqual([
      'PA_BRAND_NEW',
      'NEWCLOUD',
      'A_NEW_STATUS',
    ]);
  });
});

describe('runbooks inputs', () => {
  test('prints the schema, and with --example the example', () => {
    const schema = runCliFromSource(['inputs', 'drDrill']);
    expect(schema.status).toBe(0);
    expect(JSON.parse(schema.stdout)).toEqual(inputJsonSchema('drDrill'));
    const example = runCliFromSource(['inputs', 'drDrill', '--example']);
    expect(example.status).toBe(0);
    expect(JSON.parse(example.stdout)).toEqual(exampleInput('drDrill'));
  });

  test('with --example <name> a named example: the latest-clean drill, a search per relational database', () => {
    for (const argv of [
      ['inputs', 'drDrill', '--example', 'latest-clean'],
      ['inputs', 'drDrill', '--example=latest-clean'],
    ]) {
      const result = runCliFromSource(argv);
      expect([result.status, result.stderr]).toEqual([0, '']);
      expect(JSON.parse(result.stdout)).toEqual(namedExample('drDrill', 'latest-clean'));
    }
    const example = namedExample('drDrill', 'latest-clean');
    expect(example).toMatchObject({
      resources: { filters: { resourceType: { in: resourceTypesOf('relationalDatabase', 'neutral') } } },
      recoveryPoint: { select: 'latest-clean', windowDays: 30, check: { name: 'orders intact' } },
    });
    expect(validateRunbookInput('drDrill', example).args).toEqual([example]);
  });

  test('--example selection: a drill whose scope is a selection, resolved against the inventory at each run', () => {
    const result = runCliFromSource(['inputs', 'drDrill', '--example', 'selection']);
    expect([result.status, result.stderr]).toEqual([0, '']);
    const example = namedExample('drDrill', 'selection');
    expect(JSON.parse(result.stdout)).toEqual(example);
    expect(example).toMatchObject({
      resources: {
        tags: [
          { key: 'tier', anyOf: ['1', '2'] },
          { key: 'backup', exists: true },
          { key: 'legacy', not: { equals: 'yes' } },
        ],
        environments: ['PROD'],
        include: ['res-0042'],
        exclude: ['res-0007'],
      },
    });
    expect(validateRunbookInput('drDrill', example).args).toEqual([example]);
  });

  test('an unknown example exits 2 naming the known ones, and prints nothing else', () => {
    const cases: [string[], string][] = [
      [
        ['inputs', 'drDrill', '--example', 'latest-clen'],
        "unknown example 'latest-clen': drDrill's examples are latest-clean, selection, besides the default one (--example alone)",
      ],
      [
        ['inputs', 'costExport', '--example', 'monthly'],
        "unknown example 'monthly': costExport has only its default example (runbooks inputs costExport --example)",
      ],
      [['inputs', 'rotateCredentials', '--example', 'x'], "unknown example 'x': rotateCredentials takes no input"],
      // Refused before --discover would reach a service.
      [
        ['inputs', 'drDrill', '--example', 'nope', '--discover'],
        "unknown example 'nope': drDrill's examples are latest-clean, selection, besides the default one (--example alone)",
      ],
    ];
    for (const [argv, message] of cases) {
      const result = runCliFromSource(argv);
      expect([result.status, result.stdout, result.stderr]).toEqual([2, '', `${message}\n`]);
    }
  });

  test("an example's name needs --example, --discover fills the default one only, and one name at most", () => {
    const bare = runCliFromSource(['inputs', 'drDrill', 'latest-clean']);
    expect([bare.status, bare.stdout, bare.stderr]).toEqual([
      2,
      '',
      "an example's name goes with --example: runbooks inputs drDrill --example latest-clean\n",
    ]);
    const discover = runCliFromSource(['inputs', 'drDrill', '--example', 'latest-clean', '--discover']);
    expect([discover.status, discover.stdout]).toEqual([2, '']);
    expect(discover.stderr).toContain('--discover fills the default example only');
    const two = runCliFromSource(['inputs', 'drDrill', '--example', 'latest-clean', 'other']);
    expect([two.status, two.stderr]).toEqual([2, expect.stringMatching(/^unexpected argument 'other'\n/)]);
  });

  test('says when a runbook takes no input', () => {
    const result = runCliFromSource(['inputs', 'rotateCredentials']);
    expect([result.status, result.stdout.trim()]).toEqual([
      0,
      'rotateCredentials takes no input: runbooks start rotateCredentials',
    ]);
  });

  test('an unknown runbook exits 2 naming the known ones', () => {
    const result = runCliFromSource(['inputs', 'nonsense']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`<runbook> must be one of ${RUNBOOK_NAMES.join(', ')}, not 'nonsense'`);
  });

  test('--discover refuses, saying why, an example with no IDs of the service to fill', () => {
    const cost = runCliFromSource(['inputs', 'costExport', '--example', '--discover']);
    expect([cost.status, cost.stderr]).toEqual([2, expect.stringContaining("costExport's example names no IDs")]);
    const offboard = runCliFromSource(['inputs', 'offboardSourceAccount', '--example', '--discover']);
    expect([offboard.status, offboard.stderr]).toEqual([2, expect.stringContaining('which only you can choose')]);
  });

  test('--help prints the usage, the options and examples', () => {
    const result = runCliFromSource(['inputs', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: runbooks inputs <runbook> \[--example \[<name>\] \[--discover\]\]/);
    expect(result.stdout).toContain('--example');
    // The named examples, by runbook.
    expect(result.stdout).toContain('examples by name (--example <name>): drDrill: latest-clean');
    expect(result.stdout).toContain('runbooks inputs drDrill --example --discover > drill.json');
  });
});
