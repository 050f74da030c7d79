import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser } from '../support/browser.ts'
import { e2eFolders, screenshot } from '../support/e2e.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { resetCode, startSmtp, type TestSmtp, verifyLink } from '../support/smtp.ts'
import { startWebdavServer, type TestWebdav } from '../support/webdav.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The account screens end to end: the built web app in Chromium against the
// real server process, a real SMTP catcher and a real WebDAV server.

const EMAIL = 'listener@example.com'
const PASSWORD = 'first-password-1'
const NEW_PASSWORD = 'second-password-2'

let smtp: TestSmtp
let dav: TestWebdav
let server: ServerProcess
let browser: Browser
let folders: ReturnType<typeof e2eFolders> | undefined

beforeAll(async () => {
  folders = e2eFolders('accounts-e2e')
  ;[smtp, dav] = await Promise.all([startSmtp(), startWebdavServer(), ensureWebBuild()])
  ;[server, browser] = await Promise.all([
    startServerProcess({
      DATA_DIR: folders.dataDir,
      SMTP_URL: smtp.url,
      // the WebDAV server of this test listens on loopback, which the URL guard refuses otherwise
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      RATE_LIMIT_MAX: '1000',
    }),
    launchBrowser(),
  ])
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await Promise.all([smtp?.stop(), dav?.stop()])
  folders?.remove()
})

async function shot(page: Page, name: string) {
  await screenshot(page, name, { networkIdle: true })
}

/** Path and query of the page's URL, e.g. `/login?next=%2Faccount`. */
const where = (page: Page) => {
  const url = new URL(page.url())
  return url.pathname + url.search
}

/** Waits for the document title (set by the route's head after navigation). */
async function expectTitle(page: Page, title: string) {
  await page.waitForFunction((t) => document.title === t, title, { timeout: 5000 })
}

async function login(page: Page, password: string) {
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Submit' }).click()
}

describe('accounts in the browser', () => {
  test(
    'sign up, verify, log in, reset the password, link and unlink WebDAV, log out',
    async () => {
      const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      const pageErrors: string[] = []
      page.on('pageerror', (err) => pageErrors.push(err.message))

      // --- sign up: required fields first, then a real account
      await page.goto('/create')
      await page.getByRole('heading', { name: 'Create Account' }).waitFor()
      await page.getByRole('button', { name: 'Submit' }).click()
      await page.getByText('Required').nth(2).waitFor()
      expect(await page.getByText('Required', { exact: true }).count()).toBe(3)
      await shot(page, 'create-required')
      await page.getByLabel('Email').fill(EMAIL)
      await page.getByLabel('Password').fill(PASSWORD)
      // the native input is visually hidden under Ark's drawn box, which takes the click
      await page.getByRole('checkbox', { name: /I agree/ }).check({ force: true })
      expect(await page.getByText('Required', { exact: true }).count()).toBe(0)
      await page.getByRole('button', { name: 'Submit' }).click()
      await page.getByText('Verify account by clicking link sent to email').waitFor()
      await shot(page, 'create')
      await expectTitle(page, 'Create Account | Tunefeed')

      // --- the mailed link verifies the account
      const link = verifyLink(await smtp.nextMail(EMAIL))
      expect(link.startsWith(`${server.url}/verify/`)).toBe(true)
      await page.goto(link)
      await page.getByText('Account Verified !').waitFor()
      await shot(page, 'verify')
      // "Redirect Home" goes to /, which needs a session: the login page, with nothing to return to
      await page.getByRole('link', { name: 'Redirect Home' }).click()
      await page.waitForURL((url) => url.pathname === '/login')
      expect(where(page)).toBe('/login')

      // --- a protected page while logged out: login first, then back to it
      await page.goto('/account')
      await page.waitForURL((url) => url.pathname === '/login')
      expect(where(page)).toBe('/login?next=%2Faccount')
      await shot(page, 'login')
      await login(page, PASSWORD)
      await page.waitForURL((url) => url.pathname === '/account')
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
      expect(await page.getByLabel('Email').inputValue()).toBe(EMAIL)
      expect(await page.getByRole('checkbox', { name: 'Admin' }).isChecked()).toBe(false)
      await expectTitle(page, 'Account | Tunefeed')
      await shot(page, 'account')

      // --- reset the password through the two-step dialog (signed out: /login sends a signed-in visitor home)
      await context.clearCookies()
      await page.goto('/login')
      await page.getByRole('button', { name: 'Reset Password' }).click()
      const resetDialog = page.getByRole('dialog', { name: 'Reset Password' })
      await resetDialog.waitFor()
      await page.mouse.click(8, 400) // outside the dialog: it stays open
      await page.waitForTimeout(300)
      expect(await resetDialog.isVisible()).toBe(true)
      await resetDialog.getByLabel('Email').fill(EMAIL)
      await resetDialog.getByRole('button', { name: 'Send Reset Email' }).click()
      await resetDialog.getByText('Reset password code sent to email').waitFor()
      const code = resetCode(await smtp.nextMail(EMAIL))
      // a wrong code: the server's error; the next attempt (a field left empty) clears it
      await resetDialog.getByLabel('Token').fill('not-the-code')
      await resetDialog.getByLabel('New Password').fill(NEW_PASSWORD)
      await resetDialog.getByRole('button', { name: 'Reset Password' }).click()
      await resetDialog.getByText('Token is not valid.').waitFor()
      await resetDialog.getByLabel('Token').fill('')
      await resetDialog.getByRole('button', { name: 'Reset Password' }).click()
      await resetDialog.getByText('Required').waitFor()
      expect(await resetDialog.getByText('Token is not valid.').count()).toBe(0)
      await resetDialog.getByLabel('Token').fill(code)
      await resetDialog.getByLabel('New Password').fill(NEW_PASSWORD)
      await resetDialog.getByRole('button', { name: 'Reset Password' }).click()
      await resetDialog.getByText('Password reset Successfully !').waitFor()
      await shot(page, 'reset-dialog')
      await page.keyboard.press('Escape')
      await resetDialog.waitFor({ state: 'hidden' })

      // the old password no longer works (red Error alert); the new one does
      await login(page, PASSWORD)
      const error = page.getByRole('alert').filter({ hasText: 'Incorrect email or password.' })
      await error.waitFor()
      expect(await error.getByText('Error', { exact: true }).isVisible()).toBe(true)
      await shot(page, 'login-error')
      await page.getByRole('button', { name: 'Clear' }).click()
      expect(await page.getByLabel('Email').inputValue()).toBe('')
      await login(page, NEW_PASSWORD)
      await page.waitForURL((url) => url.pathname === '/music/downloader')
      await expectTitle(page, 'Music Downloader | Tunefeed')

      // --- WebDAV: required fields, a refused account, then the real server
      await page.getByRole('link', { name: 'Account' }).click()
      await page.waitForURL((url) => url.pathname === '/account')
      await page.getByRole('tab', { name: 'WebDAV' }).click()
      const save = page.getByRole('button', { name: 'Save' })
      await save.waitFor()
      expect(await page.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true)
      await save.click()
      await page.getByText('Required').nth(2).waitFor()
      await page.getByLabel('Username').fill(dav.username)
      await page.getByLabel('Password').fill('wrong-password')
      await page.getByLabel('URL').fill(dav.url)
      await save.click()
      await page.getByText('Error connecting to webdav server.').waitFor()
      // a new attempt clears the server's message, even one that fails in the browser
      await page.getByLabel('Password').fill('')
      await save.click()
      await page.getByText('Required').waitFor()
      expect(await page.getByText('Error connecting to webdav server.').count()).toBe(0)
      await page.getByLabel('Password').fill(dav.password)
      await save.click()
      await page.getByText('WebDAV Updated').waitFor()
      expect(await page.getByText('Error connecting to webdav server.').count()).toBe(0)
      await shot(page, 'account-webdav')

      // the form starts from the saved values after a reload
      await page.reload()
      await page.getByRole('tab', { name: 'WebDAV' }).click()
      await page.getByLabel('Username').waitFor()
      expect(await page.getByLabel('Username').inputValue()).toBe(dav.username)
      expect(await page.getByLabel('URL').inputValue()).toBe(dav.url)
      expect(await page.getByLabel('Password').getAttribute('type')).toBe('password')

      // --- delete through the Confirm Delete dialog, which closes once done
      await page.getByRole('button', { name: 'Delete' }).click()
      const confirm = page.getByRole('alertdialog', { name: 'Confirm Delete' })
      await confirm.getByText('Are you sure you want to delete your WebDAV account?').waitFor()
      await shot(page, 'account-webdav-delete')
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      await confirm.waitFor({ state: 'hidden' })
      expect((await page.request.get('/api/webdav')).status()).toBe(200)
      await page.getByRole('button', { name: 'Delete' }).click()
      await confirm.getByRole('button', { name: 'Delete' }).click()
      await confirm.waitFor({ state: 'hidden' })
      expect((await page.request.get('/api/webdav')).status()).toBe(404)
      await page.waitForFunction(() => (document.querySelector('input[name=username]') as HTMLInputElement | null)?.value === '')

      // --- legal tab and pages
      await page.getByRole('tab', { name: 'Legal' }).click()
      await page.getByRole('link', { name: 'Privacy Policy' }).click()
      await page.waitForURL((url) => url.pathname === '/privacy')
      await page.getByText('under the age of 13').waitFor()
      await shot(page, 'privacy')
      await page.goto('/terms')
      await page.getByText('18 years of age or older').waitFor()
      await shot(page, 'terms')

      // --- the shell on a phone: the side navigation sits behind the burger
      await page.setViewportSize({ width: 390, height: 760 })
      await page.goto('/youtube/videos')
      await page.getByRole('heading', { name: 'Videos' }).waitFor()
      expect(await page.getByRole('link', { name: 'Subscriptions' }).isVisible()).toBe(false)
      await page.getByRole('button', { name: 'Open navigation' }).click()
      await page.getByRole('link', { name: 'Subscriptions' }).waitFor()
      await shot(page, 'nav-mobile')
      await page.getByRole('link', { name: 'Account' }).click()
      await page.waitForURL((url) => url.pathname === '/account')
      expect(await page.getByRole('link', { name: 'Subscriptions' }).isVisible()).toBe(false)
      await page.setViewportSize({ width: 1280, height: 800 })

      // --- log out: back to login, and protected pages are closed again
      await page.getByRole('tab', { name: 'Account' }).click()
      await page.getByRole('button', { name: 'Logout' }).click()
      await page.waitForURL((url) => url.pathname === '/login')
      expect((await page.request.get('/api/auth/session')).status()).toBe(401)
      await page.goto('/youtube/subscriptions?page=2')
      await page.waitForURL((url) => url.pathname === '/login')
      expect(where(page)).toBe(`/login?next=${encodeURIComponent('/youtube/subscriptions?page=2')}`)

      expect(pageErrors).toEqual([])
      await context.close()
    },
    { timeout: 90_000 },
  )
})
