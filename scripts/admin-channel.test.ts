import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tempDatabase } from '../tests/deploy/scale-support.ts'
import { run, startServerProcess, type ServerProcess } from '../tests/support/server-process.ts'
import { startTestFake } from '../tests/support/youtube.ts'
import type { FakeYoutube } from './fake-youtube.ts'

// scripts/admin.ts beside a running server (as real processes), on PGlite, or on
// PostgreSQL when TEST_DATABASE_URL is set: every command through the admin
// channel while the server runs, and the same commands with the server stopped.
setDefaultTimeout(120_000)

const dataDir = mkdtempSync(join(tmpdir(), 'tf-chan-'))
let fake: FakeYoutube
let server: ServerProcess | null = null
let env: Record<string, string>
let dropDatabase = async () => {}

beforeAll(async () => {
  fake = await startTestFake()
  env = { DATA_DIR: dataDir, ...fake.env }
  const adminUrl = process.env.TEST_DATABASE_URL
  if (adminUrl) {
    const database = await tempDatabase(adminUrl)
    env.DATABASE_URL = database.url
    dropDatabase = database.drop
  }
  server = await startServerProcess(env, 90_000)
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await fake.stop()
  await dropDatabase()
  rmSync(dataDir, { recursive: true, force: true })
})

const admin = (...args: string[]) => run([process.execPath, 'scripts/admin.ts', ...args], env, 90_000)

describe('scripts/admin.ts beside the running server', () => {
  test('the channel is a Unix socket in DATA_DIR that only its owner may use', () => {
    const st = statSync(join(dataDir, 'admin.sock'))
    expect(st.isSocket()).toBe(true)
    expect(st.mode & 0o777).toBe(0o600)
    expect(st.uid).toBe(process.getuid!())
  })

  test('account commands run inside the server (PGlite lock or not), with the usual exit codes', async () => {
    expect(await admin('create-user', 'Boss@Example.com', 'boss-password', '--admin')).toMatchObject({ code: 0, stdout: 'Created admin boss@example.com.\n' })
    expect(await admin('create-user', 'plain@example.com', 'plain-password')).toMatchObject({ code: 0 })
    expect((await admin('create-user', 'plain@example.com', 'plain-password')).stderr).toContain('Account exists.')
    // the server's own API sees the accounts at once
    const login = await fetch(`${server!.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'plain@example.com', password: 'plain-password' }),
    })
    expect(login.status).toBe(200)
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    expect((await admin('disable-user', 'plain@example.com')).stdout).toBe('plain@example.com is disabled: its sessions ended.\n')
    // the running server refuses the session at once
    expect((await fetch(`${server!.url}/api/auth/session`, { headers: { cookie } })).status).toBe(401)
    expect((await admin('enable-user', 'plain@example.com')).code).toBe(0)
    expect(await admin('revoke-admin', 'boss@example.com')).toMatchObject({ code: 1, stderr: 'revoke-admin: Cannot remove the last admin.\n' })
    expect(await admin('grant-admin', 'ghost@example.com')).toMatchObject({ code: 1, stderr: 'grant-admin: No account for ghost@example.com.\n' })
    expect((await admin('delete-user', 'plain@example.com')).code).toBe(2)
    const users = await admin('users', 'example')
    expect(users.code).toBe(0)
    expect(users.stdout).toContain('boss@example.com  admin  jobs 0  subscriptions 0')
    expect(users.stdout).toContain('plain@example.com  -  jobs 0')
  })

  test('youtube-refresh-channels runs in the running server against the fake YouTube', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    const res = await admin('youtube-refresh-channels', kitchen.id)
    expect(res.code).toBe(0)
    expect(res.stdout).toContain(`${kitchen.id}: {"status":"done"`)
    const quota = await admin('youtube-quota')
    expect(quota).toMatchObject({ code: 0, stderr: '' })
    expect(quota.stdout).toMatch(/\(Pacific\): \d+ of 10000 units/)
    // the server's own API lists the channel's videos
    const login = await fetch(`${server!.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'boss@example.com', password: 'boss-password' }),
    })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const list = await (await fetch(`${server!.url}/api/youtube/videos/list?channel_id=${kitchen.id}`, { headers: { cookie } })).json()
    expect(list.videos.length).toBeGreaterThan(0)
    expect(list.videos[0].channel.id).toBe(kitchen.id)
  })

  test('status, jobs, schedules, mail and a test mail', async () => {
    const status = await admin('status')
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(new RegExp(`^Tunefeed \\S+ on ${env.DATABASE_URL ? 'postgres' : 'pglite'} \\(PostgreSQL`))
    expect(status.stdout).toContain('Schedule youtube.refreshAllChannels.hourly (7 * * * *)')
    expect((await admin('jobs')).stdout).toMatch(/^\d+ waiting, \d+ active, 0 failed\n$/)
    const ran = await admin('schedule-run', 'music.cleanup.daily')
    expect(ran.stdout).toMatch(/^Queued music.cleanup.daily as \S+\.\n$/)
    // the server's worker runs it: the schedule shows its last run
    const end = Date.now() + 20_000
    let schedules = ''
    while (Date.now() < end && !/music.cleanup.daily {2}17 3 \* \* \* {2}last .* completed/.test(schedules)) {
      schedules = (await admin('schedules')).stdout
    }
    expect(schedules).toMatch(/music.cleanup.daily {2}17 3 \* \* \* {2}last .* completed/)
    expect(await admin('schedule-run', 'nope')).toMatchObject({ code: 1, stderr: 'schedule-run: Schedule not found.\n' })
    expect((await admin('mail')).stdout).toBe(`No SMTP server: mails are saved in ${dataDir}/mail\nFrom: Tunefeed <no-reply@tunefeed.local>\n`)
    expect(await admin('mail-test', 'boss@example.com')).toMatchObject({ code: 0, stdout: 'Test mail sent to boss@example.com.\n' })
    expect(readdirSync(join(dataDir, 'mail')).some((f) => f.endsWith('.eml'))).toBe(true)
  })

  test('with the server stopped, the same commands open the database themselves: same output', async () => {
    const before = await admin('users')
    const mail = await admin('mail')
    const refused = await admin('revoke-admin', 'boss@example.com')
    await server!.stop()
    server = null
    expect(statSync(join(dataDir, 'admin.sock'), { throwIfNoEntry: false })).toBeUndefined()
    expect(await admin('users')).toEqual(before)
    expect(await admin('mail')).toEqual(mail)
    expect(await admin('revoke-admin', 'boss@example.com')).toEqual(refused)
    expect(await admin('delete-user', 'plain@example.com', '--yes')).toMatchObject({ code: 0, stdout: 'Deleted plain@example.com and all its data.\n' })
    expect((await admin('schedules')).stdout).toMatch(/music.cleanup.daily {2}17 3 \* \* \* {2}last .* completed {2}next -/)
  })
})
