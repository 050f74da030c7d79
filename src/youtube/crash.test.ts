import { emlFor } from '../../tests/support/smtp.ts'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { startServerProcess, type ServerProcess } from '../../tests/support/server-process.ts'
import { startTestFake } from '../../tests/support/youtube.ts'

// kill -9 while a channel refresh runs, then a restart on the same DATA_DIR:
// `updating` is cleared at start-up, the retried refresh completes, nothing is duplicated.

const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-yt-crash-'))
let fake: FakeYoutube
let server: ServerProcess | undefined

beforeAll(async () => {
  fake = await startTestFake()
}, 60_000)
afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop('SIGKILL')
  await fake?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const start = () => startServerProcess({ DATA_DIR: dataDir, ...fake.env, YOUTUBE_RETRY_BASE_MS: '1', YOUTUBE_USE_FEED: 'false' })

async function signUp(base: string): Promise<string> {
  const email = `crash-${crypto.randomUUID().slice(0, 8)}@example.com`
  const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await fetch(`${base}/api/auth/create`, json({ email, password: 'password123' }))).status).toBe(204)
  const mailDir = join(dataDir, 'mail')
  const eml = await emlFor(mailDir, email)
  const token = /\/verify\/([a-z0-9]+)/.exec(eml)![1]
  expect((await fetch(`${base}/api/auth/verify?token=${token}`)).status).toBe(204)
  const login = await fetch(`${base}/api/auth/login`, json({ email, password: 'password123' }))
  return login.headers.get('set-cookie')!.split(';')[0]!
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

test('a refresh killed with its process leaves no stuck updating', async () => {
  server = await start()
  const cookie = await signUp(server.url)
  const star = fake.channel('@star-lab')
  const channel = async () => (await (await fetch(`${server!.url}/api/youtube/channels/${star.id}`, { headers: { cookie } })).json()) as { updating: boolean }
  const videos = async () =>
    ((await (await fetch(`${server!.url}/api/youtube/videos/list?per_page=100&channel_id=${star.id}`, { headers: { cookie } })).json()) as {
      videos: { id: string }[]
    }).videos

  // every API answer now takes 3 s: the queued refresh is caught mid-way
  const add = await fetch(`${server.url}/api/youtube/subscriptions/user?channel_id=${star.id}`, { method: 'PUT', headers: { cookie } })
  expect(add.status).toBe(200)
  fake.latencyMs = 3000
  await until('the refresh to start', async () => ((await channel()).updating ? true : undefined))
  expect(await server.stop('SIGKILL')).not.toBe(0)

  fake.latencyMs = 0
  server = await start()
  // the claim of the killed process is gone, so the retried refresh can run and finish
  const filled = await until('the retried refresh', async () => {
    const list = await videos()
    return list.length === star.uploads.length && !(await channel()).updating ? list : undefined
  })
  expect(new Set(filled.map((v) => v.id)).size).toBe(star.uploads.length)
  expect(server.stderr()).toContain('cleared stuck channel refreshes') // a warning, on stderr
}, 120_000)
