import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDatabase } from '@sluice/db/testing';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { packageDir, startTestApp } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI === 'true') {
  // On CI the browser test must run: a missing Chromium is a failure, not a skip.
  throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs Debian's chromium`);
}
const artifacts = join(packageDir, 'test-artifacts');
vi.setConfig({ testTimeout: 120_000 });

describe.skipIf(!available)('HTML UI in headless Chromium', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ({ t, app, base } = await startTestApp('pglite'));
    profile = mkdtempSync(join(tmpdir(), 'sluice-users-chromium-'));
    // A fresh --user-data-dir per run (playwright passes it for a persistent context).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      // Only the delete confirmation is expected; anything else (an alert from XSS) is refused.
      void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    mkdirSync(artifacts, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await t?.drop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('adds, edits and deletes users, shows field errors, escapes user text', async () => {
    await page.goto(`${base}/`);
    expect(await page.locator('h1').textContent()).toBe('Sluice users');
    await page.getByRole('link', { name: 'Open the user list' }).click();
    await page.waitForURL(`${base}/users`);
    expect(await page.getByText('No users yet').isVisible()).toBe(true);

    // Add: first an invalid submission, which shows messages next to the fields.
    await page.getByRole('link', { name: 'Add a user' }).first().click();
    await page.getByLabel('Id').fill('1');
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('button', { name: 'Add user' }).click();
    const nameError = page.locator('#name-error');
    await nameError.waitFor({ state: 'visible' });
    expect(await nameError.textContent()).toBe('name must not be empty');
    expect(await page.locator('#pro-error').textContent()).toBe('pro must not be empty');
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Profession').fill('mathematician');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForURL(`${base}/users`);
    const ada = page.locator('tr[data-user-id="1"]');
    expect(await ada.locator('td').nth(1).textContent()).toBe('Ada Lovelace');

    // A duplicate id is refused with the 409 message beside the id field.
    await page.goto(`${base}/add`);
    await page.getByLabel('Id').fill('1');
    await page.getByLabel('Name').fill('Someone');
    await page.getByLabel('Profession').fill('else');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.locator('#id-error').waitFor({ state: 'visible' });
    expect(await page.locator('#id-error').textContent()).toBe('1 is already taken');

    // An XSS attempt is stored and shown as text, never run.
    const evil = '<img src=x onerror="alert(document.domain)"><script>alert(1)</script>';
    await page.getByLabel('Id').fill('2');
    await page.getByLabel('Name').fill(evil);
    await page.getByLabel('Profession').fill('"><b>bold</b>');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForURL(`${base}/users`);
    const evilRow = page.locator('tr[data-user-id="2"]');
    expect(await evilRow.locator('td').nth(1).textContent()).toBe(evil);
    expect(await evilRow.locator('td').nth(2).textContent()).toBe('"><b>bold</b>');
    expect(await page.locator('main img, main b, main script').count()).toBe(0);

    // Edit: the link carries the id only; the form shows the stored record, saves with PUT /1.
    await ada.getByRole('link', { name: /Edit/ }).click();
    await page.waitForURL(`${base}/edit?id=1`);
    expect(await page.getByLabel('Name').inputValue()).toBe('Ada Lovelace');
    const id = page.getByLabel('Id');
    expect(await id.getAttribute('readonly')).not.toBeNull();
    // Looks read-only: another background than the editable fields, and says so.
    const background = (selector: string) =>
      page.locator(selector).evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await background('#id')).not.toBe(await background('#name'));
    expect(await page.locator('#id-hint').textContent()).toBe('The id cannot be changed.');
    await page.getByLabel('Profession').fill('analyst');
    const [put] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'PUT'),
      page.getByRole('button', { name: 'Save changes' }).click(),
    ]);
    expect(new URL(put.url()).pathname).toBe('/1');
    await page.waitForURL(`${base}/users`);
    expect(await ada.locator('td').nth(2).textContent()).toBe('analyst');
    await page.screenshot({ path: join(artifacts, 'users-list.png'), fullPage: true });

    // Delete with confirmation.
    await evilRow.getByRole('button', { name: /Delete/ }).click();
    await evilRow.waitFor({ state: 'detached' });
    expect(await page.locator('#status').textContent()).toContain('Deleted');
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]).toMatch(/^confirm: Delete <img src=x/);
    expect((await fetch(`${base}/2`)).status).toBe(404);
    expect(await (await fetch(`${base}/1`)).json()).toMatchObject({ pro: 'analyst' });

    // A stale link (an old edit URL with values): the stored values fill the form; the link's
    // values are shown apart as a proposed change, applied only on request.
    await page.goto(`${base}/edit?id=1&name=Stale+Name`);
    expect(await page.getByLabel('Name').inputValue()).toBe('Ada Lovelace');
    expect(await page.getByLabel('Profession').inputValue()).toBe('analyst');
    expect(await page.locator('.proposed').textContent()).toContain('Stale Name');
    await page.getByRole('button', { name: 'Put the proposed values in the form' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('Stale Name');
    expect(await (await fetch(`${base}/1`)).json()).toMatchObject({ name: 'Ada Lovelace' });

    await page.goto(`${base}/edit?id=1`);
    await page.screenshot({ path: join(artifacts, 'users-edit.png'), fullPage: true });

    // Deleting the last row leaves no empty table header behind.
    await page.goto(`${base}/users`);
    await page
      .locator('tr[data-user-id="1"]')
      .getByRole('button', { name: /Delete/ })
      .click();
    await page.locator('table').waitFor({ state: 'detached' });
    expect(await page.getByText('No users on this page').isVisible()).toBe(true);

    // Unknown paths are an HTML page in a browser.
    const missing = await page.goto(`${base}/nonexistent`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    expect(await page.getByRole('link', { name: 'Users' }).first().isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
    expect(existsSync(join(artifacts, 'users-list.png'))).toBe(true);
  });
});
