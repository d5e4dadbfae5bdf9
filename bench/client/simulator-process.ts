// The simulator in its own process for the client benchmark: its work then runs on the other core, as a real
// service's would, instead of queueing behind the client's on one event loop. Tells its parent where it listens.
import { startSimulator } from '../../simulator/server';

export interface SimulatorAddress {
  baseUrl: string;
  projectId: string;
  clientId: string;
  clientSecret: string;
}

startSimulator({ port: 0 }).then(
  (sim) => {
    const address: SimulatorAddress = {
      baseUrl: sim.baseUrl,
      projectId: sim.projectId,
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
    };
    process.send?.(address);
    // The parent's exit closes the IPC channel; stop with it.
    process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
  },
  (err: unknown) => {
    process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
