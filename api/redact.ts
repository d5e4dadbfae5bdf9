/**
 * Secrets must never reach an error message, a log line or workflow history. Known secret values (client secrets,
 * issued tokens) are registered here as they pass through the client; `redact` removes them and anything shaped
 * like a credential from text.
 */

const MIN_SECRET_LENGTH = 6;
const secrets = new Set<string>();

export const REDACTED = '[REDACTED]';

export function registerSecret(value: string | undefined): void {
  // Very short values would blank out ordinary words; they are no real secrets anyway.
  if (value && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi,
  /("?(?:client_secret|clientSecret|access_token|accessToken|secret|password|token)"?\s*[:=]\s*"?)[^"&,\s}]+/gi,
];

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, `$1${REDACTED}`);
  return out;
}
