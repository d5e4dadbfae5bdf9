import { randomBytes } from 'node:crypto';
import { OAuthTokenRequest, TokenRequest } from '../../api';
import type { SimContext, SimModule } from '../context';
import { notFound, parse } from '../errors';

/** Token calls and secret rotation (docs/service-interface.md §1). */
export const authModule: SimModule = {
  name: 'auth',
  routes(app, ctx) {
    app.post('/v1/token', async (req) => {
      const body = parse(TokenRequest, req.body, 'body');
      return issueToken(ctx, body.clientId, body.clientSecret);
    });

    app.post('/v1/oauth2/token', async (req) => {
      const body = parse(OAuthTokenRequest, req.body, 'body');
      return issueToken(ctx, body.client_id, body.client_secret);
    });

    app.post<{ Params: { clientId: string } }>('/v1/api-credentials/:clientId/rotate', async (req) => {
      ctx.authorize(req, 'api_credentials.rotate_secret');
      return rotate(ctx, req.params.clientId);
    });

    app.post('/v1/api-credentials/current/rotate', async (req) => {
      const { credentials } = ctx.authorize(req, 'api_credentials.rotate_secret');
      return rotate(ctx, credentials.clientId);
    });
  },
};

function issueToken(ctx: SimContext, clientId: string, clientSecret: string) {
  const credentials = ctx.state.credentials[clientId];
  // A wrong secret is indistinguishable from unknown credentials.
  if (!credentials || credentials.clientSecret !== clientSecret) throw notFound('credentials');
  const now = ctx.clock.now();
  for (const [token, record] of Object.entries(ctx.state.tokens)) {
    if (record.expiresAt <= now) delete ctx.state.tokens[token];
  }
  const token = `sim.${randomBytes(32).toString('base64url')}`;
  const ttl = ctx.options.tokenTtlSeconds;
  ctx.state.tokens[token] = { clientId, expiresAt: now + ttl * 1000 };
  return { access_token: token, token_type: 'Bearer', expires_in: ttl };
}

/** A new secret; tokens already issued stay valid until they expire. */
function rotate(ctx: SimContext, clientId: string) {
  const credentials = ctx.state.credentials[clientId];
  if (!credentials) throw notFound(`credentials ${clientId}`);
  credentials.clientSecret = ctx.newSecret();
  return { clientId, clientSecret: credentials.clientSecret };
}
