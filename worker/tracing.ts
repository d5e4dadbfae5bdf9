// The worker's side of tracing: activity interceptors and the sink the workflows' spans leave the sandbox through.
import { createRequire } from 'node:module';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Tracing } from '../runtime/tracing';

type WorkerLib = typeof import('@temporalio/interceptors-opentelemetry/lib/worker');

// Loaded with the SDK, only when tracing is on.
const workerLib = (): WorkerLib =>
  createRequire(__filename)('@temporalio/interceptors-opentelemetry/lib/worker') as WorkerLib;

/**
 * The sink the workflows' spans leave the sandbox through. A bundle may carry the tracing interceptors while tracing is
 * off (the image's prebuilt bundle always does), so the sink is always registered: without tracing it drops the spans,
 * and Temporal logs no "unregistered sink" error.
 */
export function workflowTraceSinks(tracing?: Tracing): InjectedSinks<OpenTelemetrySinks> {
  if (!tracing) return { exporter: { export: { fn: () => undefined } } };
  return { exporter: workerLib().makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
}

/** A span around every activity, continuing the workflow's trace from the activity's headers. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory {
  const lib = workerLib();
  return (ctx) => ({
    inbound: new lib.OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new lib.OpenTelemetryActivityOutboundInterceptor(ctx),
  });
}
