/**
 * Secrets must never reach an error message, a log line or workflow history. Known secret values (client secrets,
 * issued tokens, the Temporal API key, TLS and codec keys, webhook secrets) are registered here as they are configured
 * or pass through the client; `redact` removes them and anything shaped like a credential from text.
 */

const MIN_SECRET_LENGTH = 6;
// A line of a multi-line secret (a PEM key) this long is a secret of its own: it may be logged alone.
const MIN_SECRET_LINE_LENGTH = 16;
const secrets = new Set<string>();
// Longest first: a secret's JSON-escaped form contains parts that are secrets too.
let longestFirst: string[] = [];

export const REDACTED = '[REDACTED]';

export function registerSecret(value: string | undefined): void {
  // Very short values would blank out ordinary words; they are no real secrets anyway.
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  // As it appears in a JSON log line or a form body, too.
  for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) secrets.add(form);
  if (/[\r\n]/.test(value)) {
    for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_SECRET_LINE_LENGTH) secrets.add(line.trim());
  }
  longestFirst = [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * A value that reads as a secret rather than a word: letters and digits mixed, or a long unbroken string. English after
 * `token:` ("no token: anyone who reaches it", "TOKEN: must be at least 16 characters") is neither.
 */
function secretShaped(value: string): boolean {
  return value.length >= 16 || (/[0-9]/.test(value) && /[A-Za-z]/.test(value));
}

const SECRET_NAMES =
  'client_secret|clientSecret|access_token|accessToken|refresh_token|refreshToken|api[_-]?key|secret|password|token';
// A secret-named field and its value: `"name": "value"`, `name=value`, `name: value`.
const NAMED_VALUE = new RegExp(`("?(?:${SECRET_NAMES})"?)(\\s*[:=]\\s*)("?)([^"&,\\s}]+)`, 'gi');

/** Shapes that are secrets wherever they stand. */
const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  // A JWT: three base64url parts, the first a JSON header (`{"` is `eyJ`).
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g,
  // An AWS access key ID.
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  // A private key in PEM, raw or JSON-escaped (its line breaks as \n).
  /(?<=-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(?=-----END [A-Z ]*PRIVATE KEY-----)/g,
];

export function redact(text: string): string {
  let out = text;
  for (const secret of longestFirst) out = out.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, REDACTED);
  // A bearer token: whatever follows `Bearer ` when it is shaped like one (not "bearer of the news").
  out = out.replace(/(\bBearer\s+)([A-Za-z0-9._~+/=-]+)/gi, (all, head: string, value: string) =>
    secretShaped(value) || /[._~+/=-]/.test(value) ? `${head}${REDACTED}` : all,
  );
  // `name=value` and a quoted value are machine syntax: the value goes whatever it is. After `name: ` unquoted it
  // goes when it is shaped like a secret, so that English naming a token is left as it was.
  out = out.replace(NAMED_VALUE, (all, name: string, separator: string, quote: string, value: string) => {
    // Already redacted, or a placeholder in a usage line (`TOKEN=<token>`).
    if (value.startsWith('[REDACTED') || value.startsWith('<')) return all;
    const machine = quote !== '' || separator.includes('=') || name.startsWith('"');
    return machine || secretShaped(value) ? `${name}${separator}${quote}${REDACTED}` : all;
  });
  return out;
}
