// `runbooks simulator` flags: every mistake is one UsageError (exit code 2) with the usage, before anything starts.
import { CliError, HelpRequested, UsageError } from '../../operator/errors';
import { parseSimulatorFlags, simulatorCommand, startStandaloneSimulator } from '../../simulator/command';
import { SimulatorControlClient } from '../../simulator/control-client';
import { startSimulator } from '../../simulator/server';

/** The error a call throws or rejects with. */
async function failureOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('bad flags', () => {
  test.each([
    [['--port', 'abc'], "--port must be an integer from 0 to 65535, got 'abc'"],
    [['--port', '70000'], "--port must be an integer from 0 to 65535, got '70000'"],
    [['--port', ''], "--port must be an integer from 0 to 65535, got ''"],
    [['--seed', '1.5'], "--seed must be an integer from 0 to 2147483648, got '1.5'"],
    [['--token-ttl', '0'], "--token-ttl must be an integer from 1 to 315360000, got '0'"],
    [['--fault-rate', '7'], 'invalid --fault-rate: Too big: expected number to be <=1'],
    [['--fault-rate', 'often'], "--fault-rate must be a number, got 'often'"],
    [['--fault-rate', '0.2', '--fault-kinds', '500,teapot'], "--fault-kinds: 'teapot' is not one of 500, 503, 429"],
    [['--fault-rate', '0.2', '--fault-kinds', ''], "--fault-kinds: '' is not one of 500, 503, 429"],
    [['--fault-rate', '0.2', '--fault-times', '0'], 'invalid --fault-times: Too small'],
    [['--fault-rate', '0.2', '--fault-method', 'FETCH'], 'invalid --fault-method: must be one of GET, POST'],
    [['--fault-rate', '0.2', '--fault-latency-ms', '60001'], 'invalid --fault-latency-ms: Too big'],
    [['--fault-rate', '0.2', '--fault-path-prefix', 'v1'], "invalid --fault-path-prefix: must start with '/'"],
    [['--fault-kinds', '503'], '--fault-kinds needs --fault-rate'],
    [['--fault-times', '2'], '--fault-times needs --fault-rate'],
    [['--prefix', 'api'], "--prefix must be empty or a path starting with '/', got 'api'"],
    [['--log-level', 'loud'], "--log-level must be one of silent, fatal, error, warn, info, debug, trace, got 'loud'"],
    [['--dialect', 'real'], "--dialect must be one of neutral, public, got 'real'"],
    [['--dialect', 'PUBLIC'], "--dialect must be one of neutral, public, got 'PUBLIC'"],
    [['--dialect', 'auto'], "--dialect must be one of neutral, public, got 'auto'"],
    [['--port'], "Option '--port <value>' argument missing"],
    [['8080'], "unexpected argument '8080'"],
  ])('%j → UsageError starting %j, with the usage', async (argv, start) => {
    const err = await failureOf(() => simulatorCommand(argv));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    const [first, ...rest] = (err as Error).message.split('\n');
    expect(first?.startsWith(start)).toBe(true);
    expect(rest[0]).toMatch(/^usage: runbooks simulator /);
  });

  test('an unknown option is one line, with the closest known one', async () => {
    const err = await failureOf(() => simulatorCommand(['--seeds', '2']));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe("unknown option '--seeds' for 'simulator': did you mean '--seed'?");
  });

  test('the list of fault kinds is part of the message for a bad kind', async () => {
    const err = await failureOf(() => simulatorCommand(['--fault-rate', '1', '--fault-kinds', 'boom']));
    expect((err as Error).message).toContain('reset, latency, 500-after, 503-after, reset-after');
  });

  test('a port in use is one clear CliError (exit 1), without a stack in the message', async () => {
    const other = await startSimulator({ port: 0 });
    try {
      const port = new URL(other.baseUrl).port;
      const err = await failureOf(() => simulatorCommand(['--port', port]));
      expect(err).toBeInstanceOf(CliError);
      expect(err).not.toBeInstanceOf(UsageError);
      expect((err as CliError).exitCode).toBe(1);
      expect((err as Error).message).toMatch(/^the simulator could not start: .*EADDRINUSE/);
      expect((err as Error).message).not.toContain('\n    at ');
    } finally {
      await other.close();
    }
  });
});

describe('good flags', () => {
  test('defaults', () => {
    expect(parseSimulatorFlags([])).toEqual({
      options: {
        port: 0,
        host: '127.0.0.1',
        dataDir: undefined,
        seed: 1,
        prefix: '',
        tokenTtlSeconds: 43_200,
        logLevel: 'silent',
        dialect: 'neutral',
      },
      faults: undefined,
    });
  });

  test('every fault flag reaches the fault configuration', () => {
    const flags = parseSimulatorFlags([
      '--port=8080',
      '--prefix',
      '/api',
      '--fault-rate',
      '0.25',
      '--fault-kinds',
      '503, reset-after,500-after,503-after',
      '--fault-latency-ms',
      '10',
      '--fault-retry-after',
      '2',
      '--fault-path-prefix',
      '/v1/projects',
      '--fault-method',
      'post',
      '--fault-times',
      '3',
    ]);
    expect(flags.options).toMatchObject({ port: 8080, prefix: '/api' });
    expect(flags.faults).toEqual({
      rate: 0.25,
      kinds: ['503', 'reset-after', '500-after', '503-after'],
      latencyMs: 10,
      retryAfterSeconds: 2,
      pathPrefix: '/v1/projects',
      method: 'POST',
      times: 3,
    });
  });

  test('--dialect public or neutral reaches the simulator options', () => {
    expect(parseSimulatorFlags(['--dialect', 'public']).options.dialect).toBe('public');
    expect(parseSimulatorFlags(['--dialect=neutral']).options.dialect).toBe('neutral');
  });

  test('--dialect public starts a simulator that speaks it, and says so', async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    let exited: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (exited = resolve));
    // The command stops on SIGTERM by closing its simulator, then exiting: here, without the exit.
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => exited()) as never);
    const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    try {
      await simulatorCommand(['--dialect', 'public']);
      const line = String(log.mock.calls[0]?.[0]);
      expect(line).toMatch(
        /^simulator listening on http:\/\/127\.0\.0\.1:\d+ project=\S+ clientId=\S+ dialect=public$/,
      );
      const baseUrl = /on (\S+)/.exec(line)?.[1] ?? '';
      const reply = await fetch(`${baseUrl}/v1/roles/list`, { method: 'POST', body: '{}' });
      expect(reply.status).toBe(415);
    } finally {
      const added = (signal: 'SIGINT' | 'SIGTERM') =>
        process.listeners(signal).filter((l) => !before[signal].includes(l));
      for (const listener of added('SIGTERM')) listener('SIGTERM');
      await stopped;
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        for (const listener of added(signal)) process.removeListener(signal, listener);
      }
      exit.mockRestore();
      log.mockRestore();
    }
  });

  test('--fault-rate alone injects 500s, as before', () => {
    expect(parseSimulatorFlags(['--fault-rate', '0.1']).faults).toEqual({ rate: 0.1, kinds: ['500'] });
  });

  test('--help answers with the usage and starts nothing', async () => {
    const answer: unknown = await simulatorCommand(['--help']).catch((err: unknown) => err);
    expect(answer).toBeInstanceOf(HelpRequested);
    expect((answer as HelpRequested).help).toMatch(/^usage: runbooks simulator /);
  });
});

describe('a simulator started alone', () => {
  test('gates restores behind two approvals, as the demo does; one started by a test has no policy', async () => {
    const alone = await startStandaloneSimulator(parseSimulatorFlags(['--port', '0']));
    const programmatic = await startSimulator();
    try {
      const { policies } = await new SimulatorControlClient(alone.baseUrl).call<{ policies: unknown[] }>(
        'GET',
        '/policies',
      );
      expect(policies).toEqual([
        expect.objectContaining({ operations: ['MPA_OPERATION_RESTORE_RESOURCE'], requiredApprovals: 2 }),
      ]);
      expect(programmatic.ctx.state.policies).toEqual({});
    } finally {
      await alone.close();
      await programmatic.close();
    }
  });
});
