// Jest's global teardown for the tiers that run workflows: stops the servers test/setup/temporal-servers.ts started.
export { stopSharedServers as default } from './temporal-servers';
