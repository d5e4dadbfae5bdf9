import { endpointOf } from '../../api';

// Metric labels: the path template, never an ID, whatever the IDs look like.
test.each([
  ['GET', '/v1/projects/p-1/backup-jobs/j%3A9', 'GET /v1/projects/{id}/backup-jobs/{id}'],
  ['POST', '/v1/projects/p-1/restore-accounts/list', 'POST /v1/projects/{id}/restore-accounts/list'],
  ['POST', '/v1/api-credentials/current/rotate', 'POST /v1/api-credentials/current/rotate'],
  [
    'POST',
    '/v1/projects/p/resources/r/snapshots/s/restore-bucket',
    'POST /v1/projects/{id}/resources/{id}/snapshots/{id}/restore-bucket',
  ],
  ['GET', '/v1/projects/p/queries/q/results?pageToken=abc', 'GET /v1/projects/{id}/queries/{id}/results'],
] as const)('%s %s is %s', (method, path, endpoint) => {
  expect(endpointOf({ method, path })).toBe(endpoint);
});
