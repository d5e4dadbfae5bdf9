import { registerSecret } from '../../api';
import { createLogger, PinoTemporalLogger } from '../../worker/logger';

/** Runs `fn` with stderr captured, and returns the JSON lines written. */
function capture(fn: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return lines
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('secrets never reach a log line: by field, by registered value and by shape', () => {
  registerSecret('registered-client-secret-42');
  const log = createLogger({ level: 'info', destination: 'stderr' });
  const [entry] = capture(() =>
    log.info(
      {
        headers: { authorization: 'Bearer eyJhbGciOi.payload.sig' },
        credentials: { clientId: 'runbooks-local', clientSecret: 'field-secret-value' },
        body: 'client_secret=form-secret-value&grant_type=client_credentials',
      },
      'token request failed for registered-client-secret-42',
    ),
  );
  const text = JSON.stringify(entry);
  for (const secret of ['eyJhbGciOi', 'field-secret-value', 'form-secret-value', 'registered-client-secret-42']) {
    expect(text).not.toContain(secret);
  }
  expect(entry).toMatchObject({
    msg: 'token request failed for [REDACTED]',
    headers: { authorization: '[REDACTED]' },
    credentials: { clientId: 'runbooks-local', clientSecret: '[REDACTED]' },
  });
});

test("Temporal's log levels map onto pino's, metadata kept", () => {
  const log = createLogger({ level: 'debug', destination: 'stderr' });
  const temporal = new PinoTemporalLogger(log);
  const entries = capture(() => {
    temporal.debug('polling', { taskQueue: 'backup-runbooks' });
    temporal.warn('activity retry', { attempt: 3 });
    temporal.trace('below the level: dropped');
  });
  expect(entries).toEqual([
    expect.objectContaining({ level: 20, msg: 'polling', taskQueue: 'backup-runbooks' }),
    expect.objectContaining({ level: 40, msg: 'activity retry', attempt: 3 }),
  ]);
});
