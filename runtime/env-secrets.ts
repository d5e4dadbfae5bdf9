import { registerSecret } from '../api/redact';

/**
 * Registers, for redaction, every secret the environment gives directly, before anything is validated or printed:
 * the CLI prints errors (an unknown input field, a refused value) before it loads any configuration. Secrets read
 * from files (the credentials file, a codec keys file, TLS key paths, a TOML profile) are registered where they are
 * read. Never throws: a malformed value is still registered, and refused later with its variable's name.
 */
export function registerEnvironmentSecrets(env: Record<string, string | undefined>): void {
  for (const variable of SECRET_VARIABLES) registerSecret(env[variable]?.trim());
  // `<keyId>:<base64 key>`: the key alone is what a line would show.
  registerSecret(env.RUNBOOKS_CODEC_KEY?.trim().split(':')[1]);
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('TEMPORAL_GRPC_META_') && SECRET_HEADER.test(name)) registerSecret(value?.trim());
  }
  const webhook = env.RUNBOOKS_WEBHOOK_URL?.trim();
  if (webhook) registerUrlSecrets(webhook);
}

const SECRET_VARIABLES = [
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'BACKUP_CLIENT_SECRET',
  'RUNBOOKS_CODEC_KEY',
  'RUNBOOKS_CODEC_SERVER_TOKEN',
  'RUNBOOKS_WEBHOOK_SECRET',
] as const;

/** gRPC headers that carry credentials (an `authorization` header, a vendor's key or token). */
export const SECRET_HEADER = /auth|key|token|secret|password/i;

// Long enough for a token, longer than an ordinary path segment (`services`, `webhooks`, `incoming`).
const URL_TOKEN_LENGTH = 16;

/** A URL that holds a token (Slack's webhooks): the URL, and each long path segment or query value on its own. */
export function registerUrlSecrets(text: string): void {
  registerSecret(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return;
  }
  for (const part of [...url.pathname.split('/'), ...url.searchParams.values()]) {
    if (part.length >= URL_TOKEN_LENGTH) registerSecret(part);
  }
}
