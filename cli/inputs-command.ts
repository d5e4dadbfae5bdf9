import { createRequire } from 'node:module';
import { parseCommandLine, positionals } from './args';
import { UsageError } from './errors';
import { INPUT_EXAMPLES } from './input-examples';
import { inputJsonSchema, jsonFileText } from './input-schemas';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName } from './runbooks';

export const INPUTS_USAGE = [
  'usage: runbooks inputs <runbook> [--example [--discover]]',
  "Prints a runbook's input as JSON Schema (generated from the schema that validates it), or a valid example input.",
  'options:',
  '  --example    print an example input instead of the schema',
  '  --discover   drDrill only: fill the example with a restore account, a vault and resources found on the',
  '               configured service (BACKUP_SERVICE_URL and its credentials, as the worker; else its simulator)',
  '  -h, --help   print this help',
  'examples:',
  '  runbooks inputs drDrill --example > drill.json && runbooks start drDrill --input drill.json',
  '  runbooks inputs drDrill --example --discover > drill.json',
  '  runbooks inputs costExport > costExport.schema.json',
  `runbooks: ${RUNBOOK_NAMES.join(', ')}`,
].join('\n');

// Loaded only with --discover: the service client is not needed to print a schema.
const requireHere: (id: string) => unknown = createRequire(__filename);
const discoverModule = () => requireHere('./discover-drill') as typeof import('./discover-drill');

export async function inputsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(
    argv,
    { example: { type: 'boolean' }, discover: { type: 'boolean' } },
    INPUTS_USAGE,
  );
  const [name] = positionals(rest, ['runbook'], INPUTS_USAGE);
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
