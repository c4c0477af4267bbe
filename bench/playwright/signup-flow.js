'use strict';
// The sign-up scenario of features/signup-and-login.feature, written as a
// Playwright user would write it: user-facing locators, Debian's Chromium,
// headless (Playwright's default). The warm bench runs it as a whole process
// beside the same scenario run by cucumber-js with Glance.
const path = require('path');
const { chromium } = require('playwright-core');

const fixtures = path.resolve(__dirname, '..', '..', 'features', 'fixtures');
const password = process.env.ACME_PASSWORD || 'correct-horse-battery';

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await page.goto(`file://${fixtures}/acme/signup.html`);
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('I agree to the terms of service').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Account created. Please log in.').waitFor({ timeout: 5000 });
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Welcome back, Ada').waitFor();
    await page.getByText('Signed in as Ada Lovelace').waitFor();
    await page.getByText('Your projects', { exact: true }).waitFor({ timeout: 5000 });
    await page.getByText('Website relaunch').waitFor();
    await page.getByText('Mobile app').waitFor();
    await page.screenshot({ path: path.join(process.env.SCREENSHOT_DIR || require('os').tmpdir(), 'playwright-signed-in.png') });
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
