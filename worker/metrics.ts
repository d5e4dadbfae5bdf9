import { Context } from '@temporalio/activity';
import type { MetricCounter, MetricHistogram } from '@temporalio/common';
import { Runtime, type MetricsExporterConfig } from '@temporalio/worker';
import type { CallRecord } from '../api';
import { RunbookMetric, SECONDS_BUCKETS } from '../contracts';

/** The Runtime's Prometheus exporter at `bindAddress`, with seconds buckets for the runbooks' seconds histograms. */
export function prometheusMetrics(bindAddress: string): MetricsExporterConfig {
  return {
    prometheus: {
      bindAddress,
      histogramBucketOverrides: {
        [RunbookMetric.approvalWait]: SECONDS_BUCKETS,
      },
    },
  };
}

interface ServiceCallMetrics {
  calls: MetricCounter;
  duration: MetricHistogram;
  throttled: MetricCounter;
  retries: MetricCounter;
}

let metrics: ServiceCallMetrics | undefined;

// Created on first use: by then the process has installed its Runtime (with or without an exporter).
function serviceCallMetrics(): ServiceCallMetrics {
  if (!metrics) {
    const meter = Runtime.instance().metricMeter;
    metrics = {
      calls: meter.createCounter(RunbookMetric.serviceCalls, '1', 'HTTP calls to the backup service'),
      duration: meter.createHistogram(RunbookMetric.serviceCallDuration, 'float', 'ms', 'Service call latency'),
      throttled: meter.createCounter(RunbookMetric.serviceThrottled, '1', 'Service calls answered 429'),
      retries: meter.createCounter(RunbookMetric.serviceRetries, '1', 'Service calls made by a retried activity'),
    };
  }
  return metrics;
}

/** The retry attempt of the activity making the call; 1 outside activities (the CLI's own calls, token calls). */
function attempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1;
  }
}

/** The worker's `onCall` hook for the service client: counts calls by endpoint template and status. */
export function recordServiceCall(call: CallRecord): void {
  const m = serviceCallMetrics();
  const endpoint = { endpoint: call.endpoint };
  m.calls.add(1, { ...endpoint, status: String(call.status) });
  m.duration.record(call.durationMs, endpoint);
  if (call.status === 429) m.throttled.add(1, endpoint);
  if (attempt() > 1) m.retries.add(1, endpoint);
}
