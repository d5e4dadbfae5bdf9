import type { SimModule } from '../context';
import { accountsModule } from './accounts';
import { actionRequestsModule } from './action-requests';
import { authModule } from './auth';
import { bucketsModule } from './buckets';
import { controlModule } from './control';
import { corruptionModule } from './corruption';
import { iamModule } from './iam';
import { inventoryModule } from './inventory';
import { jobsModule } from './jobs';
import { costModule } from './cost';
import { queriesModule } from './queries';
import { vaultsModule } from './vaults';

/** Every concern of the simulator, in the order their routes are registered. */
export const MODULES: readonly SimModule[] = [
  authModule,
  iamModule,
  accountsModule,
  vaultsModule,
  inventoryModule,
  jobsModule,
  actionRequestsModule,
  controlModule(() => MODULES),
  bucketsModule,
  queriesModule,
  corruptionModule,
  costModule,
];
