import { dialectOfTokenBody, type Dialect } from './dialect';
import { errorForStatus, InvalidResponseError, NotFoundError } from './errors';
import type { z } from 'zod';
import type { HttpResponse, HttpTransport } from './http';
import { registerSecret } from './redact';
import { ApiCredentials, ErrorBody, IssuedToken, TokenRequest } from './schemas';
import { validate } from './validate';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Where credentials come from when they can change under a running process (a file that a rotation, maybe by another
 * worker, rewrites). The token provider reads it whenever it needs a new token.
 */
export interface CredentialsSource {
  /** The credentials to ask for a token with now. */
  current(): Promise<Credentials>;
  /**
   * Called once when the token call refused `refused` (404): newer credentials, if the source has or can make them
   * (for example by finishing a rotation that was interrupted); undefined when it has nothing better.
   */
  recover?(refused: Credentials): Promise<Credentials | undefined>;
}

/** `json` uses `/v1/token`; `oauth2` uses the form-encoded `/v1/oauth2/token`. */
export type TokenEndpoint = 'json' | 'oauth2';

export interface TokenProviderOptions {
  transport: HttpTransport;
  credentials: Credentials;
  /** Read before every new token, so that a secret rotated elsewhere is picked up without a restart. */
  source?: CredentialsSource;
  endpoint?: TokenEndpoint;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
  /** Refresh this long before expiry (default: a tenth of the lifetime, at most 5 minutes). */
  refreshMarginSeconds?: number;
}

/** The dialect a service speaks, and how that was found (for the one log line that says so). */
export interface DialectDetection {
  dialect: Dialect;
  how: string;
}

interface CachedToken {
  value: string;
  expiresAt: number;
  refreshAt: number;
}

/** Exchanges credentials for a token once, sending nothing on bad input. */
export async function requestToken(
  transport: HttpTransport,
  credentials: Credentials,
  endpoint: TokenEndpoint = 'json',
): Promise<IssuedToken> {
  return (await issueToken(transport, credentials, endpoint)).token;
}

/**
 * A token, and the dialect its answer was written in when its shape tells: `/v1/token` answers `{accessToken, …}` in
 * the public dialect and `{access_token, …}` in the neutral one; the OAuth2 endpoint answers `access_token` in both.
 */
export async function issueToken(
  transport: HttpTransport,
  credentials: Credentials,
  endpoint: TokenEndpoint = 'json',
): Promise<{ token: IssuedToken; dialect?: Dialect }> {
  // Only the two fields the call defines are sent, whatever else the caller's credentials object holds.
  const body = validate(
    TokenRequest,
    { clientId: credentials.clientId, clientSecret: credentials.clientSecret },
    'credentials',
  );
  registerSecret(body.clientSecret);
  const path = endpoint === 'json' ? '/v1/token' : '/v1/oauth2/token';
  const res = await transport.send(
    endpoint === 'json'
      ? { method: 'POST', path, json: body }
      : {
          method: 'POST',
          path,
          form: { client_id: body.clientId, client_secret: body.clientSecret, grant_type: 'client_credentials' },
        },
  );
  const token = okBody(res, path, IssuedToken);
  registerSecret(token.accessToken);
  const dialect = endpoint === 'json' ? dialectOfTokenBody(res.body) : undefined;
  return dialect ? { token, dialect } : { token };
}

/**
 * Rotates the credentials behind `accessToken` by the `current` path (docs/service-interface.md §1), with exactly that
 * token and no refresh: a rotation can go on with a token issued before an earlier rotation, which stays valid for up
 * to 12 hours.
 */
export async function rotateWithToken(transport: HttpTransport, accessToken: string): Promise<ApiCredentials> {
  const path = '/v1/api-credentials/current/rotate';
  const res = await transport.send({ method: 'POST', path, headers: { authorization: `Bearer ${accessToken}` } });
  const rotated = okBody(res, path, ApiCredentials);
  registerSecret(rotated.clientSecret);
  return rotated;
}

/** The decoded body of a 200 answer to a POST outside the token provider; any other status as its typed error. */
function okBody<S extends z.ZodType>(res: HttpResponse, path: string, schema: S): z.output<S> {
  if (res.status !== 200) {
    const serviceMessage = ErrorBody.safeParse(res.body).data?.error;
    throw errorForStatus(res.status, { method: 'POST', path, serviceMessage }, res.headers['retry-after']);
  }
  const decoded = schema.safeParse(res.body);
  if (!decoded.success)
    throw new InvalidResponseError({ method: 'POST', path }, decoded.error.issues[0]?.message ?? '');
  return decoded.data;
}

/**
 * Hands out a bearer token: cached, refreshed before it expires, and refreshed at most once at a time however many
 * callers ask together.
 */
export class TokenProvider {
  private credentials: Credentials;
  private cached?: CachedToken;
  private inFlight?: Promise<string>;
  private detection?: Promise<DialectDetection>;
  /** The dialect of the last token answer, when its shape tells. */
  tokenDialect?: Dialect;
  private readonly endpoint: TokenEndpoint;
  private readonly now: () => number;

  constructor(private readonly options: TokenProviderOptions) {
    this.credentials = options.credentials;
    this.endpoint = options.endpoint ?? 'json';
    this.now = options.now ?? Date.now;
    registerSecret(options.credentials.clientSecret);
  }

  get clientId(): string {
    return this.credentials.clientId;
  }

  /** A valid token, from the cache while it is fresh. */
  async getToken(): Promise<string> {
    return this.freshToken() ?? this.refresh();
  }

  /** The cached token while it is fresh, without waiting a turn: the hot path of every call. */
  freshToken(): string | undefined {
    return this.cached && this.now() < this.cached.refreshAt ? this.cached.value : undefined;
  }

  /**
   * Gets a new token. Passing the token a call was refused with avoids a second refresh when another caller has
   * already replaced it.
   */
  async refresh(staleToken?: string): Promise<string> {
    if (staleToken && this.cached && this.cached.value !== staleToken && this.now() < this.cached.refreshAt) {
      return this.cached.value;
    }
    this.inFlight ??= this.fetchToken().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /**
   * The service's dialect, found once by `detect` for every client sharing this provider; a detection that failed
   * (the service could not be reached) is tried again by the next caller.
   */
  detectDialect(detect: () => Promise<DialectDetection>): Promise<DialectDetection> {
    this.detection ??= detect().catch((err: unknown) => {
      this.detection = undefined;
      throw err;
    });
    return this.detection;
  }

  /** Uses new credentials from now on (after a rotation); the next call gets a token with them. */
  setCredentials(credentials: Credentials): void {
    registerSecret(credentials.clientSecret);
    this.credentials = credentials;
    this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const issuedAt = this.now();
    const { token, dialect } = await this.requestWithSource();
    if (dialect) this.tokenDialect = dialect;
    const lifetimeMs = token.expiresInSeconds * 1000;
    const marginMs = (this.options.refreshMarginSeconds ?? Math.min(300, token.expiresInSeconds / 10)) * 1000;
    this.cached = {
      value: token.accessToken,
      expiresAt: issuedAt + lifetimeMs,
      refreshAt: issuedAt + lifetimeMs - marginMs,
    };
    return token.accessToken;
  }

  /** Asks with the source's credentials; after a 404 asks the source once more, since another worker may have rotated. */
  private async requestWithSource(): Promise<{ token: IssuedToken; dialect?: Dialect }> {
    const source = this.options.source;
    if (!source) return issueToken(this.options.transport, this.credentials, this.endpoint);
    const credentials = await source.current();
    this.useCredentials(credentials);
    try {
      return await issueToken(this.options.transport, credentials, this.endpoint);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      const fresher = source.recover ? await source.recover(credentials) : await source.current();
      if (
        !fresher ||
        (fresher.clientId === credentials.clientId && fresher.clientSecret === credentials.clientSecret)
      ) {
        throw err;
      }
      this.useCredentials(fresher);
      return issueToken(this.options.transport, fresher, this.endpoint);
    }
  }

  private useCredentials(credentials: Credentials): void {
    registerSecret(credentials.clientSecret);
    this.credentials = credentials;
  }
}
