// A meter for activity-side gauge tests (MockActivityEnvironment's metricMeter): each gauge's last value per tag set.
import type { MetricGauge, MetricMeter, MetricTags } from '@temporalio/common';

/**
 * A meter that keeps each gauge's last value per tag set, as an exporter would. `what` names the metrics in
 * the error a counter or histogram would throw.
 */
export function gaugeMeter(what: string) {
  const values = new Map<string, number>();
  // The activity's own tags (namespace, task queue, activity type) are the SDK's: keys hold ours.
  const sdkTags = new Set(['namespace', 'taskQueue', 'activityType']);
  const key = (name: string, tags: MetricTags) =>
    `${name}${JSON.stringify(
      Object.entries(tags)
        .filter(([k]) => !sdkTags.has(k))
        .sort(),
    )}`;
  const unused = () => {
    throw new Error(`${what} metrics are gauges only`);
  };
  const meter: MetricMeter = {
    createCounter: unused,
    createHistogram: unused,
    createGauge(name: string, valueType = 'int'): MetricGauge {
      const gauge: MetricGauge = {
        name,
        kind: 'gauge',
        valueType,
        set: (value, tags = {}) => void values.set(key(name, tags), value),
        withTags: unused,
      };
      return gauge;
    },
    withTags: () => meter,
  };
  const get = (name: string, tags: Record<string, string>) => values.get(key(name, tags));
  return { meter, values, get };
}
