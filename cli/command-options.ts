import type { OptionSpec } from './command-table';

// The building blocks of the command table's options, shared by the files that hold its parts.

export const text = (name: string, placeholder: string, description: string): OptionSpec => ({
  name,
  value: 'text',
  placeholder,
  description,
});

export const flag = (name: string, description: string): OptionSpec => ({ name, description });

// As cli/output.ts parses it.
export const output: OptionSpec = {
  name: 'output',
  short: 'o',
  value: ['text', 'json'],
  description: 'text (the default) or json: one JSON document, for scripts',
};
