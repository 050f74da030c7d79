import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { axeFindings } from '../support/axe.ts'
import { SCREENSHOTS, screenshot } from '../support/e2e.ts'
import { launchBrowser } from '../support/browser.ts'
import { signUpOverHttp } from '../support/music.ts'
import { startOidcProvider, type TestOidc } from '../support/oidc.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// Account tools end to end: sign-in through a real OpenID provider (oidc-provider on
// 127.0.0.1, its own login and consent forms), API tokens, password change and account
// deletion, in Chromium against the real server process.

let idp: TestOidc
let server: ServerProcess
let browser: Browser
let dataDir: string

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-account-e2e-'))
  ;[idp] = await Promise.all([startOidcProvider(), ensureWebBuild()])
  ;[server, browser] = await Promise.all([
    startServerProcess({
      DATA_DIR: dataDir,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_NAME: 'Pocket ID',
      RATE_LIMIT_MAX: '1000',
    }),
    launchBrowser(),
  ])
  idp.redirectUris.push(`${server.url}/api/auth/oidc/default/callback`)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await idp?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

async function shot(page: Page, name: string) {
  await screenshot(page, name, { networkIdle: true })
}

async function newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  // bypassCSP: the app's script-src refuses the injected axe-core script (the policy itself is tested elsewhere)
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 }, bypassCSP: true })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (err) => errors.push(err.message))
  return { context, page, errors }
}

/** Through the provider's own pages: its login form, then its consent form. */
async function atProvider(page: Page, login: string) {
  await page.waitForURL((url) => url.origin === idp.issuer)
  await page.getByPlaceholder('Enter any login').fill(login)
  await page.getByPlaceholder('and password').fill('provider-password')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
}

async function signedInWithCookie(cookie: string) {
  const made = await newPage()
  const [name, value] = cookie.split('=') as [string, string]
  await made.context.addCookies([{ name, value, url: server.url }])
  return made
}

describe('sign in with an identity provider', () => {
  test('the login page offers it; a full sign-in creates the account and returns to the wanted page', async () => {
    idp.users.set('ada', { email: 'ada@example.com', emailVerified: true })
    const { context, page, errors } = await newPage()
    await page.goto('/account')
    await page.waitForURL((url) => url.pathname === '/login')
    const button = page.getByRole('link', { name: 'Sign in with Pocket ID' })
    await button.waitFor()
    await shot(page, 'login-provider')
    expect(await axeFindings(page, 'login with a provider')).toEqual([])
    await button.click()
    await atProvider(page, 'ada')
    await page.waitForURL((url) => url.origin === server.url && url.pathname === '/account')
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    expect(await page.getByLabel('Email').inputValue()).toBe('ada@example.com')
    expect(errors).toEqual([])
    await context.close()
  }, 60_000)

  test('an unverified provider e-mail is refused with a clear message', async () => {
    idp.users.set('bob', { email: 'bob@example.com', emailVerified: false })
    const { context, page } = await newPage()
    await page.goto('/login')
    await page.getByRole('link', { name: 'Sign in with Pocket ID' }).click()
    await atProvider(page, 'bob')
    await page.waitForURL((url) => url.origin === server.url && url.pathname === '/login')
    await page.getByText('Your e-mail address at Pocket ID is not verified').waitFor()
    await shot(page, 'login-provider-unverified')
    expect(await axeFindings(page, 'login after a refused provider sign-in')).toEqual([])
    await context.close()
  }, 60_000)

  test('an existing account is not taken over: the login page says to link it; linked from the Account page, the provider signs in', async () => {
    const cookie = await signUpOverHttp(server.url, dataDir)
    const email = (await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie } })).json()).email as string
    // the provider asserts the same address, in upper case
    idp.users.set('cara', { email: email.toUpperCase(), emailVerified: true })
    const outsider = await newPage()
    await outsider.page.goto('/login')
    await outsider.page.getByRole('link', { name: 'Sign in with Pocket ID' }).click()
    await atProvider(outsider.page, 'cara')
    await outsider.page.waitForURL((url) => url.origin === server.url && url.pathname === '/login')
    await outsider.page
      .getByRole('alert')
      .getByText('An account with this e-mail already exists. Sign in with your password, then link Pocket ID on the Account page.')
      .waitFor()
    await shot(outsider.page, 'login-provider-exists')
    expect(await axeFindings(outsider.page, 'login after a provider sign-in for an existing account')).toEqual([])
    expect((await outsider.context.cookies()).some((c) => c.name === 'tunefeed_session')).toBe(false)
    await outsider.context.close()

    const { context, page, errors } = await signedInWithCookie(cookie)
    await page.goto('/account')
    const providers = page.getByRole('list', { name: 'Sign-in providers' })
    await providers.getByText('Not linked').waitFor()
    await providers.getByRole('link', { name: 'Link Pocket ID' }).click()
    await atProvider(page, 'cara')
    await page.waitForURL((url) => url.origin === server.url && url.pathname === '/account')
    await page.getByRole('status').getByText('Pocket ID is linked: you can sign in with it now.').waitFor()
    await providers.getByText(/^Linked /).waitFor()
    await shot(page, 'account-provider-linked')
    await page.mouse.move(0, 0)
    expect(await axeFindings(page, 'Account tab with a linked provider')).toEqual([])
    expect(errors).toEqual([])
    await context.close()

    const again = await newPage()
    await again.page.goto('/login')
    await again.page.getByRole('link', { name: 'Sign in with Pocket ID' }).click()
    await atProvider(again.page, 'cara')
    await again.page.waitForURL((url) => url.origin === server.url && url.pathname !== '/login')
    await again.page.goto('/account')
    expect(await again.page.getByLabel('Email').inputValue()).toBe(email)
    // unlinked again, by keyboard, after a confirmation: the password account goes on alone
    const linkedList = again.page.getByRole('list', { name: 'Sign-in providers' })
    await linkedList.getByRole('button', { name: 'Unlink Pocket ID' }).focus()
    await again.page.keyboard.press('Enter')
    const dialog = again.page.getByRole('alertdialog', { name: 'Unlink Pocket ID' })
    await dialog.getByText('Pocket ID will no longer sign into this account.', { exact: false }).waitFor()
    expect(await axeFindings(again.page, 'the Unlink confirmation')).toEqual([])
    await dialog.getByRole('button', { name: 'Unlink' }).click()
    await again.page.getByText('Pocket ID is unlinked: sign in with your password from now on.').waitFor()
    await linkedList.getByText('Not linked').waitFor()
    const identities = await again.page.evaluate(async () => (await fetch('/api/auth/identities')).json())
    expect(identities).toEqual({ identities: [] })
    await again.context.close()
  }, 90_000)

  test('SIGNUP=oidc-only: no password sign-up in the app', async () => {
    const closedDir = mkdtempSync(join(tmpdir(), 'tunefeed-account-e2e-closed-'))
    const closed = await startServerProcess({
      DATA_DIR: closedDir,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      OIDC_NAME: 'Pocket ID',
      SIGNUP: 'oidc-only',
    })
    try {
      const context = await browser.newContext({ baseURL: closed.url, viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      await page.goto('/login')
      await page.getByRole('link', { name: 'Sign in with Pocket ID' }).waitFor()
      expect(await page.getByRole('link', { name: 'Create Account' }).count()).toBe(0)
      await page.goto('/create')
      await page.getByText('Sign-up with a password is turned off.').waitFor()
      await page.getByRole('link', { name: 'Sign in with Pocket ID' }).waitFor()
      expect(await page.getByLabel('Password').count()).toBe(0)
      await shot(page, 'create-oidc-only')
      await context.close()
    } finally {
      await closed.stop()
      rmSync(closedDir, { recursive: true, force: true })
    }
  }, 90_000)
})

describe('account tools', () => {
  test('API tokens: create (shown once, copy) with an expiry date, use, last use listed, revoke', async () => {
    const cookie = await signUpOverHttp(server.url, dataDir)
    const { context, page, errors } = await signedInWithCookie(cookie)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    await page.goto('/account')
    await page.getByRole('tab', { name: 'API Tokens' }).click()
    await page.getByText('No tokens yet.').waitFor()
    await page.getByLabel('Name').fill('iPhone Shortcut')
    // a date picked in the Expires field: the token works through that day
    const in30 = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000)
    const day = `${in30.getFullYear()}-${String(in30.getMonth() + 1).padStart(2, '0')}-${String(in30.getDate()).padStart(2, '0')}`
    await page.getByLabel('Expires').fill(day)
    await page.getByRole('button', { name: 'Create Token' }).click()
    const shown = page.getByLabel('New token')
    await shown.waitFor()
    const token = await shown.inputValue()
    expect(token).toMatch(/^tf_[a-z2-7]{32}$/)
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('button', { name: 'Copied' }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token)
    await shot(page, 'account-api-token-created')
    await page.mouse.move(0, 0)
    expect(await axeFindings(page, 'API Tokens tab with a new token')).toEqual([])
    const row = page.getByRole('listitem').filter({ hasText: 'iPhone Shortcut' })
    await row.getByText('Never used').waitFor()
    await row.getByText(/Expires /).waitFor()
    const listed = await page.evaluate(async () => (await (await fetch('/api/auth/tokens')).json()).tokens[0].expiresAt as string)
    const end = new Date(listed)
    expect(end.getDate()).toBe(in30.getDate())
    expect([end.getHours(), end.getMinutes()]).toEqual([23, 59])

    const list = await fetch(`${server.url}/api/music/jobs/list?page=1&per_page=5`, { headers: { authorization: `Bearer ${token}` } })
    expect(list.status).toBe(200)
    await page.reload()
    await page.getByRole('tab', { name: 'API Tokens' }).click()
    await row.getByText(/Last used/).waitFor()
    await shot(page, 'account-api-tokens')

    await row.getByRole('button', { name: 'Revoke iPhone Shortcut' }).click()
    await page.getByText('No tokens yet.').waitFor()
    expect((await fetch(`${server.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
    expect(errors).toEqual([])
    await context.close()
  }, 60_000)

  test('change the password (other sessions end), then delete the account after confirming the password', async () => {
    const cookie = await signUpOverHttp(server.url, dataDir)
    const { context, page, errors } = await signedInWithCookie(cookie)
    // a second session of the same account, elsewhere
    const email = (await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie } })).json()).email as string
    const other = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'password123' }),
    })
    const otherCookie = other.headers.get('set-cookie')!.split(';')[0]!

    // an API token of the account: the change revokes it (the form says so; 'Keep my API tokens' is off)
    const made = await fetch(`${server.url}/api/auth/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'script' }),
    })
    const { token } = (await made.json()) as { token: string }
    await page.goto('/account')
    await page.getByText('your API tokens revoked').waitFor()
    expect(await page.getByRole('checkbox', { name: 'Keep my API tokens' }).isChecked()).toBe(false)
    await page.getByLabel('Current Password').fill('wrong password')
    await page.getByLabel('New Password').fill('a brand new password')
    await page.getByRole('button', { name: 'Change Password' }).click()
    await page.getByText('Incorrect password.').waitFor()
    await page.mouse.move(0, 0)
    expect(await axeFindings(page, 'Account tab with an error')).toEqual([])
    await page.getByLabel('Current Password').fill('password123')
    await page.getByRole('button', { name: 'Change Password' }).click()
    await page.getByText('Password changed').waitFor()
    await shot(page, 'account-password')
    expect((await fetch(`${server.url}/api/auth/session`, { headers: { cookie: otherCookie } })).status).toBe(401)
    expect((await fetch(`${server.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)

    await page.getByRole('button', { name: 'Delete Account' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Delete Account' })
    await dialog.getByLabel('Password').fill('a brand new password')
    await shot(page, 'account-delete')
    expect(await axeFindings(page, 'Delete Account dialog')).toEqual([])
    await dialog.getByRole('button', { name: 'Delete Account' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a brand new password' }),
    })
    expect(login.status).toBe(401)
    expect(errors).toEqual([])
    await context.close()
  }, 60_000)
})
