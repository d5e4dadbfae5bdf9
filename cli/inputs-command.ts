import { parseCommandLine, positionals } from './args';
import { INPUT_EXAMPLES } from './input-examples';
import { inputJsonSchema, jsonFileText } from './input-schemas';
import { RUNBOOK_NAMES, RUNBOOKS, runbookName } from './runbooks';

export const INPUTS_USAGE = [
  'usage: runbooks inputs <runbook> [--example]',
  "Prints a runbook's input as JSON Schema (generated from the schema that validates it), or a valid example input.",
  'options:',
  '  --example    print an example input instead of the schema',
  '  -h, --help   print this help',
  'examples:',
  '  runbooks inputs drDrill --example > drill.json && runbooks start drDrill --input drill.json',
  '  runbooks inputs costExport > costExport.schema.json',
  `runbooks: ${RUNBOOK_NAMES.join(', ')}`,
].join('\n');

export function inputsCommand(argv: string[]): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, { example: { type: 'boolean' } }, INPUTS_USAGE);
  const [name] = positionals(rest, ['runbook'], INPUTS_USAGE);
  const runbook = runbookName(name);
  if (!RUNBOOKS[runbook].takesInput) {
    console.log(`${runbook} takes no input: runbooks start ${runbook}`);
    return Promise.resolve();
  }
  const example = INPUT_EXAMPLES[runbook];
  process.stdout.write(jsonFileText(values.example ? example : inputJsonSchema(runbook)));
  return Promise.resolve();
}
