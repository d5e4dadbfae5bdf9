// The variables that point a worker or the CLI at a simulator, as a deployment sets them for the real service.
import type { RunningSimulator } from '../../simulator/server';

export function serviceEnv(
  sim: Pick<RunningSimulator, 'baseUrl' | 'projectId' | 'clientId' | 'clientSecret'>,
): Record<string, string> {
  return {
    BACKUP_SERVICE_URL: sim.baseUrl,
    BACKUP_PROJECT_ID: sim.projectId,
    BACKUP_CLIENT_ID: sim.clientId,
    BACKUP_CLIENT_SECRET: sim.clientSecret,
  };
}
