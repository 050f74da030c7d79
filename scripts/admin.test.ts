import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findUserByEmail, verifyPassword } from '../src/auth/queries.ts'
import { openDatabase } from '../src/db/client.ts'
import { run } from '../tests/support/server-process.ts'
import { commands, usage } from '../src/admin/commands/index.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

// The CLI as a real process on a PGlite DATA_DIR (the first command runs initdb).
const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-admin-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const admin = (...args: string[]) => run([process.execPath, 'scripts/admin.ts', ...args], { DATA_DIR: dataDir }, 90_000)

async function user(email: string) {
  const database = await openDatabase({ dataDir })
  try {
    return await findUserByEmail(database.db, email)
  } finally {
    await database.close()
  }
}

describe('scripts/admin.ts', () => {
  test('create-user --admin makes a verified admin whose password works', async () => {
    const res = await admin('create-user', 'Boss@Example.com', 'boss-password', '--admin')
    expect(res).toMatchObject({ code: 0, stdout: 'Created admin boss@example.com.\n' })
    const row = await user('boss@example.com')
    expect(row!.admin).toBe(true)
    expect(row!.verifiedAt).toBeInstanceOf(Date)
    expect(await verifyPassword('boss-password', row!.passwordHash)).toBe(true)
  }, 100_000)

  test('create-user without --admin; a second time is refused', async () => {
    expect((await admin('create-user', 'plain@example.com', 'plain-password')).code).toBe(0)
    const row = await user('plain@example.com')
    expect(row!.admin).toBe(false)
    expect(row!.verifiedAt).toBeInstanceOf(Date)
    const again = await admin('create-user', 'plain@example.com', 'other-password')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('Account exists.')
  })

  test('grant-admin and revoke-admin', async () => {
    const grant = await admin('grant-admin', 'plain@example.com')
    expect(grant).toMatchObject({ code: 0, stdout: 'plain@example.com is now an admin.\n' })
    expect((await user('plain@example.com'))!.admin).toBe(true)
    const revoke = await admin('revoke-admin', 'PLAIN@example.com')
    expect(revoke).toMatchObject({ code: 0, stdout: 'plain@example.com is no longer an admin.\n' })
    expect((await user('plain@example.com'))!.admin).toBe(false)
  })

  test('unknown accounts are refused with exit 1', async () => {
    for (const cmd of ['grant-admin', 'revoke-admin']) {
      const res = await admin(cmd, 'ghost@example.com')
      expect(res.code).toBe(1)
      expect(res.stderr).toContain('No account for ghost@example.com.')
    }
  })

  test('bad usage exits 2 with the usage line, and touches nothing', async () => {
    const cases: [string[], string][] = [
      [[], 'Usage: bun scripts/admin.ts <command>'],
      [['frobnicate'], 'Unknown command: frobnicate'],
      [['create-user', 'not-an-email', 'password123'], 'invalid email'],
      [['create-user', 'short@example.com', 'short'], 'at least 8'],
      [['create-user', 'a@example.com'], 'expected 2 arguments'],
      [['create-user', 'a@example.com', 'password123', '--root'], 'unknown option --root'],
      [['grant-admin'], 'expected 1 argument'],
      [['revoke-admin', 'a@example.com', 'b@example.com'], 'expected 1 argument'],
    ]
    for (const [args, message] of cases) {
      const res = await admin(...args)
      expect({ args, code: res.code }).toEqual({ args, code: 2 })
      expect(res.stderr + res.stdout).toContain(message)
    }
    expect(await user('short@example.com')).toBeUndefined()
  })

  test('help lists every command in the table', async () => {
    const res = await admin('help')
    expect(res.code).toBe(0)
    for (const command of Object.values(commands)) expect(res.stdout).toContain(command.usage)
    expect(usage()).toContain('DATABASE_URL')
  })

  test('a bad environment variable is named', async () => {
    const res = await run([process.execPath, 'scripts/admin.ts', 'grant-admin', 'a@example.com'], { DATA_DIR: dataDir, DATABASE_URL: 'mysql://x' })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('DATABASE_URL:')
  })

  test('refused while another process holds the PGlite data folder', async () => {
    // a live process (this test runner) holding the lock
    writeFileSync(join(dataDir, 'db.lock'), String(process.pid))
    try {
      const res = await admin('grant-admin', 'plain@example.com')
      expect(res.code).toBe(1)
      expect(res.stderr).toContain('another Tunefeed is using this data folder')
    } finally {
      rmSync(join(dataDir, 'db.lock'), { force: true })
    }
  })
})
