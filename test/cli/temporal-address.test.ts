// A malformed TEMPORAL_ADDRESS is refused at once, before any connection is tried: exit 2, one line naming the
// variable and the form it must have. In process, through cli/run.ts.
import { format } from 'node:util';
import { EXIT_CODES } from '../../operator/errors';
import { run } from '../../cli/run';

let saved: string | undefined;
beforeAll(() => {
  saved = process.env.TEMPORAL_ADDRESS;
});
afterAll(() => {
  if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = saved;
});

test.each(['127.0.0.1:99999', 'host:', ':7233', 'a b', 'localhost', 'host:0'])(
  'TEMPORAL_ADDRESS=%j: exit 2 with one line',
  async (address) => {
    process.env.TEMPORAL_ADDRESS = address;
    let stderr = '';
    const toErr = (...parts: unknown[]) => void (stderr += `${format(...parts)}\n`);
    const spy = jest.spyOn(console, 'error').mockImplementation(toErr);
    try {
      const status = await run(['list'], { out: () => undefined, err: toErr });
      expect(stderr).toBe(
        `invalid configuration: TEMPORAL_ADDRESS: must be host:port, e.g. localhost:7233, not '${address}'\n`,
      );
      expect(status).toBe(EXIT_CODES.usage);
    } finally {
      spy.mockRestore();
    }
  },
);
