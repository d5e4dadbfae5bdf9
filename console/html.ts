import { escapeHtml } from '../runtime/escape-html';

/**
 * HTML built from templates in which every interpolated value is escaped, unless it is already `Html` (built the same
 * way). Values from Temporal, the service or a report can only reach a page through here.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | boolean | undefined | null | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Text that is markup already, written by this module's callers (a constant), never a value from outside. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
