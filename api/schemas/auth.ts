import { z } from 'zod';
import { record } from './common';

export const TokenRequest = z.strictObject({ clientId: z.string().min(1), clientSecret: z.string().min(1) });
export type TokenRequest = z.infer<typeof TokenRequest>;

export const OAuthTokenRequest = z.strictObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  grant_type: z.literal('client_credentials', { error: "must be 'client_credentials'" }),
  // The one optional field of an OAuth 2.0 client-credentials request (RFC 6749 §4.4.2).
  scope: z.string().optional(),
});

/** The specification's token response. */
export const AccessToken = record({
  access_token: z.string().optional(),
  token_type: z.string().optional(),
  expires_in: z.number().int().optional(),
});
export type AccessToken = z.infer<typeof AccessToken>;

/** The public dialect's token response. */
export const PublicAccessToken = record({ accessToken: z.string(), expirationSeconds: z.number().optional() });

export const DEFAULT_TOKEN_LIFETIME_SECONDS = 43_200;

/** Either dialect, read as one shape. */
export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

export const IssuedToken = z.union([PublicAccessToken, AccessToken]).transform((body, ctx): IssuedToken => {
  const pub = PublicAccessToken.safeParse(body);
  const token = pub.success ? pub.data.accessToken : AccessToken.parse(body).access_token;
  const expiresIn = pub.success ? pub.data.expirationSeconds : AccessToken.parse(body).expires_in;
  if (!token) {
    ctx.addIssue({ code: 'custom', message: 'token response carries no access token', path: ['access_token'] });
    return z.NEVER;
  }
  return { accessToken: token, expiresInSeconds: expiresIn ?? DEFAULT_TOKEN_LIFETIME_SECONDS };
});

export const ApiCredentials = record({ clientId: z.string(), clientSecret: z.string() });
export type ApiCredentials = z.infer<typeof ApiCredentials>;
