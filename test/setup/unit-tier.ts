// The unit tier's files start no Temporal server: test/helpers/temporal.ts refuses to, naming the tiers that may.
import { TIER_ENV } from './tier';

process.env[TIER_ENV] = 'unit';
