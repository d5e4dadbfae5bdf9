import { z } from 'zod';
import { RUNBOOK_NAMES, RUNBOOKS, type RunbookName } from '../runbooks/registry';
import { ALLOW_UNKNOWN_VALUES } from '../runtime/input-rules';

/** The runbooks that take an input: every other one is started without `--input`. */
export const RUNBOOKS_WITH_INPUT: readonly RunbookName[] = RUNBOOK_NAMES.filter((name) => RUNBOOKS[name].takesInput);

/** The key an input file may carry for editors; the runbook never sees it. */
export const SCHEMA_KEY = '$schema';

/** Where an example file points its `$schema`: the generated schema beside it. */
export const schemaReference = (runbook: RunbookName) => `../schemas/${runbook}.json`;

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of a runbook's input, generated from the zod schema that validates it (as given, before defaults
 * and renames). JSON Schema cannot state every rule (`ids` or `filters` but not both, a destination naming one
 * target): each schema holding such a rule says it in its description, and the runbook checks it before starting.
 */
export function inputJsonSchema(runbook: RunbookName): JsonSchema {
  const schema = z.toJSONSchema(RUNBOOKS[runbook].input, {
    io: 'input',
    // Nothing in an input is unrepresentable today; should something become so, it stays open and is said to be.
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      // zod's own format name for `startsWith`; the pattern beside it says the same in standard JSON Schema.
      if (jsonSchema.format === 'starts_with') delete jsonSchema.format;
      const rules = rulesOf(zodSchema);
      if (rules.length === 0) return;
      // A refinement and the pipe it wraps describe one node: their rules go in one sentence.
      const said = typeof jsonSchema.description === 'string' ? jsonSchema.description : '';
      jsonSchema.description = said.startsWith(REFUSED)
        ? `${said.replace(/\.$/, '')}; ${rules.join('; ')}.`
        : `${said ? `${said} ` : ''}${REFUSED}${rules.join('; ')}.`;
    },
  }) as JsonSchema;
  const { $schema, description, properties, ...rest } = schema;
  const intro =
    `The input of the ${runbook} runbook (runbooks start ${runbook} --input <file>), generated from the zod schema ` +
    'that validates it: regenerate with `npm run schemas`. Defaults are shown as `default`.';
  return {
    $schema,
    title: `${runbook} input`,
    description: typeof description === 'string' ? `${intro} ${description}` : intro,
    ...rest,
    // An input file may name its schema; the CLI drops the key before validating. The flag is read before the
    // input's own schema, so zod's JSON Schema does not show it.
    ...(properties !== undefined && {
      properties: {
        [SCHEMA_KEY]: { type: 'string' },
        ...(properties as JsonSchema),
        [ALLOW_UNKNOWN_VALUES]: {
          type: 'boolean',
          description:
            "Take values of the service's enums (resource types, providers, statuses, …) that this release does not " +
            'know, for a value the service added since. Without it such a value is refused, naming the closest ' +
            'known one.',
        },
      },
    }),
  };
}

/** How a schema's description lists the rules JSON Schema cannot state. */
const REFUSED = 'Checked when the runbook starts, beyond what JSON Schema says: ';

/** The messages of a schema's own refinements; a rule without a fixed message (a superRefine) is named generically. */
function rulesOf(schema: z.core.$ZodType): string[] {
  const checks = schema._zod.def.checks ?? [];
  return checks
    .filter((check) => check._zod.def.check === 'custom')
    .map((check) => {
      const message = check._zod.def.error?.({} as never);
      const text = typeof message === 'string' ? message : message?.message;
      const path = (check._zod.def as { path?: PropertyKey[] }).path;
      const where = path && path.length > 0 ? `${path.map(String).join('.')}: ` : '';
      return text ? `${where}${text}` : 'a rule across its members (the refusal names it)';
    });
}

function withoutKey<T extends Record<string, unknown>>(value: T, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
}

/** An input as read from `--input`, without the `$schema` key an example file carries. */
export function withoutSchemaKey(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !Object.hasOwn(raw, SCHEMA_KEY)) return raw;
  return withoutKey(raw as Record<string, unknown>, SCHEMA_KEY);
}

/** A file's text as generated: two-space JSON and a final newline, as Prettier leaves it. */
export const jsonFileText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** examples/<runbook>.json: the hand-written example, pointing at its schema. */
export function exampleFile(runbook: RunbookName, example: Readonly<Record<string, unknown>>): JsonSchema {
  return { [SCHEMA_KEY]: schemaReference(runbook), ...example };
}
