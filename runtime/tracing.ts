// Traces are off unless the standard OpenTelemetry variables ask for them. The SDK loads only then, so the CLI stays
// lean and nothing changes by default.
import { createRequire } from 'node:module';
import type { Tracing, TracingOptions } from './tracing-sdk';

export type { Tracing, TracingOptions };

type Env = Record<string, string | undefined>;

/** On when `OTEL_TRACES_EXPORTER` (other than `none`) or an OTLP endpoint is set, unless `OTEL_SDK_DISABLED=true`. */
export function tracingEnabled(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The process's tracing when configured (installed on first use), otherwise undefined. */
export function loadTracing(serviceName: string, env: Env = process.env): Tracing | undefined {
  if (!tracingEnabled(env)) return undefined;
  const sdk = createRequire(__filename)('./tracing-sdk') as typeof import('./tracing-sdk');
  return sdk.installTracing({ serviceName, env });
}
