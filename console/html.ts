import { escapeHtml, isolateHtml } from '../runtime/escape-html';

/**
 * HTML built from templates in which every interpolated value is escaped, unless it is already `Html` (built the same
 * way). Values from Temporal, the service or a report can only reach a page through here. A text value in element
 * content is isolated besides (`<bdi>` when it is not ASCII), so that a name holding U+202E or right-to-left letters
 * cannot reorder what the page says around it.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | boolean | undefined | null | readonly HtmlValue[];

function render(value: HtmlValue, content: boolean): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map((v) => render(v, content)).join('');
  if (typeof value === 'string' && content) return isolateHtml(value);
  return escapeHtml(String(value));
}

/**
 * Whether what follows `before` is element content: not inside a tag (an attribute) nor in a `<title>`, whose text
 * cannot hold elements. The templates are this code's, and values reach `before` escaped: a `<` or `>` in it is markup.
 */
function inContent(before: string): boolean {
  return before.lastIndexOf('<') <= before.lastIndexOf('>') && !/<title>[^<]*$/.test(before);
}

export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value, inContent(out)) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** Text that is markup already, written by this module's callers (a constant), never a value from outside. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
