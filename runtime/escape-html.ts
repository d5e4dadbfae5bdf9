/** Text made safe for HTML and inline SVG, in element content and in quoted attributes. */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * Text that can reorder the text around it: a bidi control (U+202E and the others) or a right-to-left letter (the
 * blocks Unicode gives a right-to-left default, UAX #9). Such text is isolated; other text (ASCII, a dash, accented
 * Latin) is left as it was.
 */
const DIRECTIONAL =
  /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Escaped text for HTML element content, in `<bdi>` when it could reorder what surrounds it. */
export function isolateHtml(text: string): string {
  const escaped = escapeHtml(text);
  return DIRECTIONAL.test(text) ? `<bdi>${escaped}</bdi>` : escaped;
}

/**
 * Escaped text for where no element can isolate it: SVG `<text>` and `<title>`, a page's `<title>`. Its own bidi
 * controls are dropped (the tables show the exact text) and it is set between FSI and PDI, which isolate it.
 */
export function isolatePlain(text: string): string {
  const escaped = escapeHtml(text.replace(BIDI_CONTROLS, ''));
  return DIRECTIONAL.test(text) ? `\u2068${escaped}\u2069` : escaped;
}
