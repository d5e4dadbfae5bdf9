import { createRequire } from 'node:module';
import { parseCommandLine, positionals } from '../operator/args';
import { UsageError } from '../operator/errors';

import { inputJsonSchema, jsonFileText } from '../operator/input-schemas';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName, exampleInput } from '../operator/runbooks';
import { helpFor } from '../operator/help';

const HELP = helpFor('inputs', [`runbooks: ${RUNBOOK_NAMES.join(', ')}`]);

// Loaded only with --discover: the service client is not needed to print a schema.
const requireHere: (id: string) => unknown = createRequire(__filename);
const discoverModule = () => requireHere('./discover-inputs') as typeof import('./discover-inputs');

export async function inputsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  const [name] = positionals(rest, ['runbook'], HELP);
  const runbook = runbookName(name);
  if (values.discover && !values.example) {
    throw new UsageError(`--discover fills an example: runbooks inputs ${runbook} --example --discover`);
  }
  const discover = values.discover ? discoverModule() : undefined;
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
  const example = exampleInput(runbook) ?? {};
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
