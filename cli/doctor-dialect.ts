import type { BackupServiceClient, TokenEndpoint } from '../api';
import { dialectOfToken, dialectOfTokenBody, type Dialect } from '../api/dialect';
import { fail, ok, warn, type CheckResult } from './doctor-report';
import type { ServiceTarget } from './doctor-target';

/**
 * Which dialect the service speaks, told from its own answers (the token answer's shape, else the tokens of a
 * listing), against BACKUP_SERVICE_DIALECT. A configured dialect the service does not speak fails: the client would
 * send it words the service refuses or, worse, misreads (facts §11).
 */

export interface DialectEvidence {
  tokenBody: unknown;
  tokenEndpoint: TokenEndpoint;
  /** Wire tokens from listings: providers, resource types. */
  tokens: readonly string[];
}

const ID = 'service.dialect';
const CHECK = 'dialect';

const TOKEN_SHAPES: Record<Dialect, string> = {
  public: '{accessToken, expirationSeconds}',
  neutral: '{access_token, expires_in}',
};

/** The dialect the service's answers show, and which answer showed it. */
export function detectDialect(evidence: DialectEvidence): { dialect: Dialect; how: string } | undefined {
  // The OAuth 2.0 endpoint answers in the standard's shape whatever the dialect.
  const fromBody = evidence.tokenEndpoint === 'json' ? dialectOfTokenBody(evidence.tokenBody) : undefined;
  if (fromBody) return { dialect: fromBody, how: `its token answer ${TOKEN_SHAPES[fromBody]}` };
  for (const token of evidence.tokens) {
    const dialect = dialectOfToken(token);
    if (dialect) return { dialect, how: `'${token}' in a listing` };
  }
  return undefined;
}

export async function checkDialect(
  target: ServiceTarget,
  _client: BackupServiceClient,
  evidence: DialectEvidence,
): Promise<{ line: CheckResult }> {
  const configured = target.dialect;
  const detected = detectDialect(evidence);
  const setting = `BACKUP_SERVICE_DIALECT=${configured}`;
  if (!detected) {
    const detail = `the service's answers did not show its dialect (${setting})`;
    const fix =
      configured === 'auto'
        ? 'set BACKUP_SERVICE_DIALECT to neutral or public: the service must be spoken to in the right one'
        : `make sure ${configured} is the dialect of ${target.baseUrl}`;
    return { line: warn(ID, CHECK, detail, fix) };
  }
  const speaks = `the service speaks the ${detected.dialect} dialect (from ${detected.how})`;
  if (configured !== 'auto' && configured !== detected.dialect) {
    const detail = `${setting}, but ${speaks}`;
    const fix = `set BACKUP_SERVICE_DIALECT=${detected.dialect}, or auto to detect it`;
    return { line: fail(ID, CHECK, detail, fix) };
  }
  return { line: ok(ID, CHECK, `${speaks}; ${setting}`) };
}
