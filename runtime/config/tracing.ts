import { mdCode, type SettingDoc } from './env';

/**
 * Traces: runtime/tracing.ts turns them on from these variables, and OpenTelemetry's SDK reads them (and the other
 * standard OTEL_* ones) itself; nothing here validates them. The metrics and health endpoints are process.ts's.
 */

/** docs/configuration.md, "Metrics and traces". */
export const TRACING_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: 'unset: no traces',
    meaning: 'An OTLP/HTTP collector, e.g. `http://otel-collector:4318`; turns traces on for the worker and the CLI',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    default: 'unset',
    meaning: "The collector's traces URL itself; turns traces on too",
  },
  { name: 'OTEL_TRACES_EXPORTER', default: 'unset', meaning: '`otlp`, `console` (prints spans) or `none`' },
  { name: 'OTEL_SDK_DISABLED', default: mdCode('false'), meaning: '`true` keeps traces off whatever else is set' },
  {
    name: 'OTEL_SERVICE_NAME',
    default: '`runbooks-worker`, `runbooks-cli`',
    meaning:
      'The service name of the spans. The other standard `OTEL_*` variables (`OTEL_EXPORTER_OTLP_HEADERS`, ' +
      '`OTEL_RESOURCE_ATTRIBUTES`, …) work as OpenTelemetry documents them',
  },
];
