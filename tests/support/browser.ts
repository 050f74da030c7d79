import { type Browser, chromium, type Page } from 'playwright-core'

/** Debian's Chromium, headless; playwright-core downloads no browser of its own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    headless: true,
  })
}

/** Signs in through the login page and waits for the landing page (the Music Downloader). */
export async function logIn(page: Page, email: string, password: string) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Submit' }).click()
  await page.waitForURL((url) => url.pathname === '/music/downloader')
}
