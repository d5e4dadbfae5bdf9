/** A port nothing listens on (taken, then released). */
export declare function closedPort(): Promise<number>;
/**
 * The variables (PATH the only one inherited) of a worker that lists its modules into `modulesOut` on exit and stops at
 * its one attempt to reach a Temporal at a closed port; its bundle, `<dir>/workflow-bundle.js`, is never read.
 */
export declare function moduleListingEnv(
  dir: string,
  modulesOut: string,
  dataDir: string,
): Promise<Record<string, string>>;
