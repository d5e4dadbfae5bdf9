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

const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi,
  /("?(?:client_secret|clientSecret|access_token|accessToken|refresh_token|refreshToken|api[_-]?key|secret|password|token)"?\s*[:=]\s*"?)[^"&,\s}]+/gi,
  // A private key in PEM, raw or JSON-escaped (its line breaks as \n).
  /(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(?=-----END [A-Z ]*PRIVATE KEY-----)/g,
];

export function redact(text: string): string {
  let out = text;
  for (const secret of longestFirst) out = out.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, `$1${REDACTED}`);
  return out;
}
