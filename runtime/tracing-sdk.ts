// The OpenTelemetry SDK, loaded only when traces are configured (runtime/tracing.ts): one tracer provider per
// process, shared by the Temporal client, the worker's interceptors and the service-call spans.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { HttpCall, HttpResponse } from '../api';
import { NetworkError } from '../api/errors';

type Env = Record<string, string | undefined>;

export interface TracingOptions {
  /** `service.name`, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES set one. */
  serviceName: string;
  env?: Env;
  /** Replaces the exporter chosen by OTEL_TRACES_EXPORTER (tests use an in-memory one). */
  spanProcessor?: SpanProcessor;
}

export interface Tracing {
  readonly resource: Resource;
  /** Receives every span, including the workflows' (through the worker's sink). */
  readonly spanProcessor: SpanProcessor;
  /** For the Temporal client: a span per start, signal, query…, its context sent in the workflow's headers. */
  clientInterceptor(): OpenTelemetryWorkflowClientInterceptor;
  /** For the service client (api/http.ts `around`): one client span per HTTP call. */
  aroundServiceCall(call: HttpCall, send: () => Promise<HttpResponse>): Promise<HttpResponse>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

function exporterProcessor(env: Env): SpanProcessor {
  // The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout) itself.
  const exporter = env.OTEL_TRACES_EXPORTER?.trim() === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  return new BatchSpanProcessor(exporter);
}

/** Installs the global tracer provider once; later calls get the same one. */
export function installTracing(options: TracingOptions): Tracing {
  if (installed) return installed;
  const resource = new Resource({ 'service.name': options.serviceName }).merge(
    detectResourcesSync({ detectors: [envDetectorSync] }),
  );
  const spanProcessor = options.spanProcessor ?? exporterProcessor(options.env ?? process.env);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Activities run inside the interceptor's active span: async-local context lets the HTTP spans find it.
  provider.register({ contextManager: new AsyncLocalStorageContextManager() });
  const tracer = trace.getTracer('backup-runbooks');
  let stopped: Promise<void> | undefined;
  const shutdown = () => (stopped ??= provider.shutdown());
  // The CLI exits when its work is done: flush what it started (a worker shuts down explicitly).
  process.once('beforeExit', () => void shutdown());
  installed = {
    resource,
    spanProcessor,
    clientInterceptor: () => new OpenTelemetryWorkflowClientInterceptor(),
    aroundServiceCall: (call, send) =>
      tracer.startActiveSpan(
        call.endpoint,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'http.request.method': call.method, 'url.template': call.endpoint.replace(/^\S+ /, '') },
        },
        context.active(),
        async (span) => {
          try {
            const res = await send();
            span.setAttribute('http.response.status_code', res.status);
            if (res.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.status}` });
            return res;
          } catch (err) {
            span.setAttribute('error.type', err instanceof NetworkError && err.timedOut ? 'timeout' : 'error');
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            throw err;
          } finally {
            span.end();
          }
        },
      ),
    shutdown,
  };
  return installed;
}
