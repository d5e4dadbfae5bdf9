import { createRequire } from 'node:module';
import { parseCommandLine, positionals } from '../operator/args';
import { UsageError } from '../operator/errors';

import { inputJsonSchema, jsonFileText } from '../operator/input-schemas';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName, exampleInput, exampleNames, namedExample } from '../operator/runbooks';
import { helpFor } from '../operator/help';

const NAMED = RUNBOOK_NAMES.filter((r) => exampleNames(r).length > 0).map((r) => `${r}: ${exampleNames(r).join(', ')}`);
const HELP = helpFor('inputs', [
  `runbooks: ${RUNBOOK_NAMES.join(', ')}`,
  ...(NAMED.length ? [`examples by name (--example <name>): ${NAMED.join('; ')}`] : []),
]);

// Loaded only with --discover: the service client is not needed to print a schema.
const requireHere: (id: string) => unknown = createRequire(__filename);
const discoverModule = () => requireHere('./discover-inputs') as typeof import('./discover-inputs');

/** `--example=<name>` as `--example <name>`: the flag takes no value, and the name is the word after it. */
const exampleWords = (argv: string[]) => {
  const end = argv.indexOf('--');
  return argv.flatMap((arg, i) =>
    (end < 0 || i < end) && arg.startsWith('--example=') ? ['--example', arg.slice('--example='.length)] : [arg],
  );
};

export async function inputsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(exampleWords(argv), HELP);
  const [name, exampleName] = positionals(rest, rest.length > 1 ? ['runbook', 'example'] : ['runbook'], HELP);
  const runbook = runbookName(name);
  if (exampleName !== undefined && !values.example) {
    throw new UsageError(`an example's name goes with --example: runbooks inputs ${runbook} --example ${exampleName}`);
  }
  // Checked first: a name that is no example is refused whatever else the line asks.
  const named = exampleName === undefined ? undefined : namedExample(runbook, exampleName);
  if (values.discover && !values.example) {
    throw new UsageError(`--discover fills an example: runbooks inputs ${runbook} --example --discover`);
  }
  const discover = values.discover ? discoverModule() : undefined;
  if (discover && named) {
    // Discovery picks resources of any type a drill takes; a named example selects its own, to edit.
    throw new UsageError(
      `--discover fills the default example only; the ${exampleName} one is to edit: ` +
        `runbooks inputs ${runbook} --example ${exampleName}`,
    );
  }
  if (discover && !discover.isDiscoverable(runbook)) {
    // An offboarding names the account to take away: never one picked from the service.
    throw new UsageError(
      `--discover fills the examples of ${discover.DISCOVERABLE.join(', ')}; ${runbook}'s example ` +
        (runbook === 'offboardSourceAccount'
          ? 'names the account to offboard, which only you can choose'
          : 'names no IDs of the service') +
        `: runbooks inputs ${runbook} --example`,
    );
  }
  if (!RUNBOOKS[runbook].takesInput) {
    console.log(`${runbook} takes no input: runbooks start ${runbook}`);
    return;
  }
  const example = named ?? exampleInput(runbook) ?? {};
  if (!values.example) {
    process.stdout.write(jsonFileText(inputJsonSchema(runbook)));
    return;
  }
  if (!discover?.isDiscoverable(runbook)) {
    process.stdout.write(jsonFileText(example));
    return;
  }
  process.stdout.write(jsonFileText(await discover.discoverInput(runbook, example)));
}
