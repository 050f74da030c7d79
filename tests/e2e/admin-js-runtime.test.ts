import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { axeFindings } from '../support/axe.ts'
import { launchBrowser } from '../support/browser.ts'
import { adminCommand, e2eFolders, openLoggedInPage, SCREENSHOTS, type WatchedPage } from '../support/e2e.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The admin page when yt-dlp has no supported JavaScript runtime: the server runs with
// YTDLP_JS_RUNTIME=node:/usr/bin/node (this machine's Node 20, below yt-dlp's floor of 22), and the
// Tools card says so in words, with the sentence /api/health answers.

const ADMIN = { email: 'runtime-admin@example.com', password: 'runtime-password-1' }
const SENTENCE = 'YouTube downloads need Deno 2.3 or later, or Node 22 or later.'

let server: ServerProcess
let browser: Browser
let folders: ReturnType<typeof e2eFolders> | undefined
let watched: WatchedPage | undefined

beforeAll(async () => {
  folders = e2eFolders('admin-js-e2e')
  const env = { DATA_DIR: folders.dataDir }
  await Promise.all([ensureWebBuild(), adminCommand(['create-user', ADMIN.email, ADMIN.password, '--admin'], env)])
  ;[server, browser] = await Promise.all([
    startServerProcess({ DATA_DIR: folders.dataDir, YTDLP_JS_RUNTIME: 'node:/usr/bin/node', RATE_LIMIT_MAX: '1000' }),
    launchBrowser(),
  ])
}, 240_000)

afterAll(async () => {
  await watched?.context.close()
  await browser?.close()
  await server?.stop()
  folders?.remove()
})

describe('an unsupported JavaScript runtime on the admin page', () => {
  test('the Tools card names it, says it is not supported and what YouTube needs; health says the same', async () => {
    watched = await openLoggedInPage(browser, { baseURL: server.url, viewport: { width: 1280, height: 860 }, bypassCSP: true }, ADMIN)
    const { page, pageErrors } = watched
    await page.goto('/admin')
    await page.getByRole('heading', { name: 'Admin' }).waitFor()
    await page.getByText(/Not supported Node 20\.\d+\.\d+ \(set by YTDLP_JS_RUNTIME\)/).waitFor()
    await page.getByText('/usr/bin/node', { exact: true }).waitFor()
    await page.getByText(SENTENCE, { exact: true }).waitFor()
    await page.waitForLoadState('networkidle')
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-js-runtime-unsupported.png'), fullPage: true })
    expect(await axeFindings(page, '/admin unsupported runtime')).toEqual([])
    // YouTube's State agrees with the tools (issue 37): not working, for the same reason
    expect(await page.getByTestId('youtube-state').textContent()).toBe(`Not working ${SENTENCE}`)
    // at phone width nothing runs off the side
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByTestId('youtube-state').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-status-phone.png'), fullPage: true })
    expect(await axeFindings(page, '/admin status at phone width')).toEqual([])
    expect(pageErrors).toEqual([])

    const health = await fetch(`${server.url}/api/health`)
    expect(health.status).toBe(503)
    expect(await health.json()).toMatchObject({ status: 'degraded', jsRuntime: SENTENCE })
  }, 120_000)
})
