import { existsSync } from 'node:fs';

/** Debian's Chromium (CHROMIUM_PATH overrides); CI installs it, so there a missing one fails. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI === 'true') {
  throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs Debian's chromium`);
}

/** Headless, no sandbox (root in CI), no GPU and no background traffic to Google. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
