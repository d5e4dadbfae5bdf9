import { BackupServiceClient, type ClientOptions } from '../api';
import type { Dialect } from '../api/dialect';
import { fail, ok, warn, type CheckResult } from './doctor-report';
import type { ServiceTarget } from './doctor-target';

/**
 * The dialect the worker's client will speak (BACKUP_SERVICE_DIALECT, or what it detects with `auto`), against the
 * one the service answers in, as a client set to `auto` tells it (the token answer's shape, else a first listing).
 * A configured dialect the service does not speak fails: the client would send words the service refuses or, worse,
 * misreads (docs/service-interface.md §11).
 */

const ID = 'service.dialect';
const CHECK = 'dialect';

/** What a client with these options speaks, and how it decided. */
async function spoken(options: ClientOptions): Promise<{ dialect: Dialect; how: string }> {
  let how = '';
  const client = new BackupServiceClient({ ...options, onDialect: (_, said) => (how = said) });
  const dialect = await client.wireDialect();
  return { dialect, how };
}

export async function checkDialect(target: ServiceTarget, options: ClientOptions): Promise<{ line: CheckResult }> {
  const setting = `BACKUP_SERVICE_DIALECT=${target.dialect}`;
  const worker = await spoken({ ...options, dialect: target.dialect });
  const service = target.dialect === 'auto' ? worker : await spoken({ ...options, dialect: 'auto' });
  // The client assumes the neutral vocabulary when nothing it was answered tells.
  if (service.how.startsWith('assumed')) {
    const detail = `the service's answers do not tell its dialect (${setting}; ${service.how})`;
    const fix =
      target.dialect === 'auto'
        ? 'set BACKUP_SERVICE_DIALECT to neutral or public: the service must be spoken to in its own'
        : `make sure ${target.baseUrl} speaks the ${target.dialect} dialect`;
    return { line: warn(ID, CHECK, detail, fix) };
  }
  const speaks = `the service speaks the ${service.dialect} dialect (${service.how})`;
  if (worker.dialect !== service.dialect) {
    const detail = `${setting}, but ${speaks}`;
    const fix = `set BACKUP_SERVICE_DIALECT=${service.dialect}, or auto to detect it`;
    return { line: fail(ID, CHECK, detail, fix) };
  }
  return { line: ok(ID, CHECK, `${speaks}; ${setting}`) };
}
