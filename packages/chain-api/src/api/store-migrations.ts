import type { Migration } from '@sluice/db';
import { changeMigrations } from '../changes/change-migrations.js';
import { chainMigrations } from '../db/migrations.js';
import { nftMigrations } from '../nft/migrations.js';
import { pricingMigrations } from '../pricing/migrations.js';
import { walletsMigrations } from '../wallets/migrations.js';
import { apiMigrations } from './api-migrations.js';
import { simSurfaceMigrations } from './sim-migrations.js';

/**
 * Every migration list of the package, in the order they build on each other:
 * indexer tables -> pricing -> NFT -> API (keys, settings) -> scoped change notifications.
 */
export const storeMigrations: readonly Migration[] = [
  ...chainMigrations,
  ...pricingMigrations,
  ...nftMigrations,
  ...apiMigrations,
  ...simSurfaceMigrations,
  ...walletsMigrations,
  // Last: replaces the change triggers the lists above create.
  ...changeMigrations,
];
