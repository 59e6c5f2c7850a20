export { chainMigrations } from './migrations.js';
