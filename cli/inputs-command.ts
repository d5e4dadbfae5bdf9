import { createRequire } from 'node:module';
import { parseCommandLine, positionals } from './args';
import { UsageError } from './errors';
import { INPUT_EXAMPLES } from './input-examples';
import { inputJsonSchema, jsonFileText } from './input-schemas';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName } from './runbooks';
import { helpFor } from './help';

const HELP = helpFor('inputs', [`runbooks: ${RUNBOOK_NAMES.join(', ')}`]);

// Loaded only with --discover: the service client is not needed to print a schema.
const requireHere: (id: string) => unknown = createRequire(__filename);
const discoverModule = () => requireHere('./discover-drill') as typeof import('./discover-drill');

export async function inputsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  const [name] = positionals(rest, ['runbook'], HELP);
  const runbook = runbookName(name);
  if (values.discover && (runbook !== 'drDrill' || !values.example)) {
    throw new UsageError(`--discover fills a drDrill example: runbooks inputs drDrill --example --discover`);
  }
  if (!RUNBOOKS[runbook].takesInput) {
    console.log(`${runbook} takes no input: runbooks start ${runbook}`);
    return;
  }
  const example = INPUT_EXAMPLES[runbook] ?? {};
  if (!values.example) {
    process.stdout.write(jsonFileText(inputJsonSchema(runbook)));
    return;
  }
  if (!values.discover) {
    process.stdout.write(jsonFileText(example));
    return;
  }
  const { discoverDrillInput } = discoverModule();
  process.stdout.write(jsonFileText(await discoverDrillInput(example)));
}
