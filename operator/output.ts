import { UsageError } from './errors';
import type { Help } from './help';

/**
 * `-o, --output text|json`, as the Temporal CLI spells it: `text` for people (the default), `json` for scripts. The
 * JSON shapes are the types of operator/output-shapes.ts. In JSON mode standard output holds one JSON document and nothing
 * else; notes and errors go to standard error, and the exit codes are those of text mode.
 */

export const OUTPUT_FORMATS = ['text', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** `--output`'s value, or a usage error naming it and the allowed ones. */
export function outputFormat(value: string, { usage }: Help): OutputFormat {
  const format = OUTPUT_FORMATS.find((f) => f === value);
  if (format) return format;
  throw new UsageError(`--output must be ${OUTPUT_FORMATS.join(' or ')}, not '${value}'\n${usage}`);
}

/** One JSON document on standard output: the whole of a command's output in JSON mode. */
export function printJson(value: object): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const row of rows)
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}
