import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { sql } from 'drizzle-orm'
import { main as backup } from '../../scripts/backup.ts'
import { main as migrateToPostgres } from '../../scripts/migrate-to-postgres.ts'
import { openPglite, openPostgres } from '../../src/db/client.ts'
import { summarize, type TableSummary } from '../../src/db/transfer.ts'
import { testMedia } from '../support/media.ts'
import { startServerProcess } from '../support/server-process.ts'
import { createMusicJob, HttpClient, listMusicJobs, signUp, waitForMusicJobs } from './support.ts'

// A real installation (made by the app: an account, two finished music jobs,
// the generated secret; plus 1,500 YouTube rows of every column type), backed
// up, restored elsewhere and moved to PostgreSQL; after each step every
// table's rows and every media file must be identical, and the app must work
// on the result.

const work = mkdtempSync(join(tmpdir(), 'tunefeed-backup-test-'))
const original = join(work, 'original')
const email = 'backup@example.com'
const password = 'password123'
const quiet = () => {}
let tables: Record<string, TableSummary>
let jobIds: string[] = []

/** Every file under DATA_DIR that a backup carries (not the database, lock, queue, scratch), with its SHA-256. */
function mediaFiles(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const rel = relative(dataDir, path)
      if (/^(db|db\.lock|queue|tmp|replaced-[^/]*)(\/|$)/.test(rel)) continue
      if (statSync(path).isDirectory()) walk(path)
      else out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(dataDir)
  return out
}

async function pgliteSummary(dataDir: string) {
  const database = await openPglite(join(dataDir, 'db'), { migrate: false })
  try {
    return await summarize(database.db)
  } finally {
    await database.close()
  }
}

/** The app on `env` answers for the account and serves every music job's mp3. */
async function appServesEverything(env: Record<string, string>) {
  const server = await startServerProcess({ ...env, APP_SECRET: '' }, 120_000)
  try {
    const client = new HttpClient(server.url)
    expect((await client.json('/api/auth/login', { email, password })).status).toBe(200)
    const jobs = await listMusicJobs(client)
    expect(jobs.map((j) => j.id).sort()).toEqual([...jobIds].sort())
    for (const job of jobs) {
      const mp3 = await client.request(job.downloadUrl!)
      expect(mp3.status).toBe(200)
      expect((await mp3.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
    }
  } finally {
    await server.stop()
  }
}

beforeAll(async () => {
  // no APP_SECRET: the app generates DATA_DIR/secret, which the backup must carry
  const server = await startServerProcess({ DATA_DIR: original, APP_SECRET: '' }, 120_000)
  try {
    const client = new HttpClient(server.url)
    await signUp(client, join(original, 'mail'), email, password)
    const media = await testMedia()
    jobIds = [await createMusicJob(client, media.wav, { title: 'One' }), await createMusicJob(client, media.mp3, { title: 'Twö "quoted" \\ back' })]
    const jobs = await waitForMusicJobs(client, jobIds)
    expect(jobs.every((j) => j.completed)).toBe(true)
  } finally {
    await server.stop()
  }
  // more rows than one copy batch, and awkward values of every column type
  const database = await openPglite(join(original, 'db'), { migrate: false })
  const { db } = database
  await db.execute(sql`insert into youtube_channels (id, title, handle, refreshed_at) values ('UCbackup', 'Chännel ✓ "q" \\ \n line', null, '2024-02-29T23:59:59.123456Z')`)
  await db.execute(sql`insert into youtube_videos (id, channel_id, title, published_at, category_id, duration)
    select 'v' || g, 'UCbackup', 'Video ' || g || ' 🎵', timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute 0.000001 second', g % 30, g
    from generate_series(1, 1500) g`)
  await db.execute(sql`insert into youtube_playback_progress (user_id, video_id, played_seconds, duration)
    select id, 'v7', 0.1, 3.4028235e38 from users`)
  await db.execute(sql`insert into youtube_likes (user_id, video_id) select id, 'v' || g from users, generate_series(1, 20) g`)
  await db.execute(sql`insert into youtube_quota_days (day, units, calls, cause) values ('2024-03-01', 9999, 3, null)`)
  tables = await summarize(db)
  await database.close()
  expect(tables.youtube_videos!.rows).toBe(1500)
  expect(tables.music_jobs!.rows).toBe(2)
}, 200_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('backup and restore with PGlite', () => {
  const archive = join(work, 'pglite-backup.tar.gz')
  const restored = join(work, 'restored')

  test('create → restore into an empty folder: same rows, same files, the app works on it', async () => {
    expect(await backup(['create', '--out', archive], { DATA_DIR: original }, quiet)).toBe(0)
    expect(statSync(archive).size).toBeGreaterThan(10_000)
    // it holds the database and the secret: owner-only
    expect(statSync(archive).mode & 0o777).toBe(0o600)

    const lines: string[] = []
    expect(await backup(['inspect', archive], {}, (l) => lines.push(l))).toBe(0)
    expect(lines[0]).toMatch(/^pglite backup of .* files: mail, music, secret$/)

    expect(await backup(['restore', archive], { DATA_DIR: restored }, quiet)).toBe(0)
    expect(await pgliteSummary(restored)).toEqual(tables)
    expect(mediaFiles(restored)).toEqual(mediaFiles(original))
    expect(Object.keys(mediaFiles(restored)).filter((f) => f.endsWith('.mp3')).length).toBeGreaterThanOrEqual(2)
    await appServesEverything({ DATA_DIR: restored })
  }, 180_000)

  test('restore refuses to overwrite without --force; with it, the old data is moved aside', async () => {
    expect(await backup(['restore', archive], { DATA_DIR: restored }, quiet)).toBe(1)
    expect(await backup(['restore', archive, '--force'], { DATA_DIR: restored }, quiet)).toBe(0)
    const aside = readdirSync(restored).filter((n) => n.startsWith('replaced-'))
    expect(aside).toHaveLength(1)
    expect(readdirSync(join(restored, aside[0]!)).sort()).toEqual(['db', 'mail', 'music', 'secret'])
    expect(await pgliteSummary(restored)).toEqual(tables)
    expect(readdirSync(restored).some((n) => n.startsWith('.restore-'))).toBe(false)
  }, 120_000)

  test('a backup refuses to run while the app holds the data folder', async () => {
    const server = await startServerProcess({ DATA_DIR: restored }, 60_000)
    try {
      expect(await backup(['create', '--out', join(work, 'never.tar.gz')], { DATA_DIR: restored }, quiet)).toBe(1)
      expect(existsSync(join(work, 'never.tar.gz'))).toBe(false)
    } finally {
      await server.stop()
    }
  }, 90_000)
})

const adminUrl = process.env.TEST_DATABASE_URL

describe.skipIf(!adminUrl)('PostgreSQL: migrate-to-postgres, pg_dump backups, PGlite backup into PostgreSQL', () => {
  const made: string[] = []
  /** A new empty database on the test server (dropped at the end). */
  async function emptyDatabase(): Promise<string> {
    const { default: postgres } = await import('postgres')
    const admin = postgres(adminUrl!, { onnotice: () => {}, max: 1 })
    const name = `tf_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}`
    await admin.unsafe(`create database ${name}`)
    await admin.end()
    made.push(name)
    const url = new URL(adminUrl!)
    url.pathname = `/${name}`
    return url.toString()
  }
  async function pgSummary(url: string) {
    const database = await openPostgres(url, { migrate: false, max: 1 })
    try {
      return await summarize(database.db)
    } finally {
      await database.close()
    }
  }
  afterAll(async () => {
    const { default: postgres } = await import('postgres')
    const admin = postgres(adminUrl!, { onnotice: () => {}, max: 1 })
    // a failed drop is left to scripts/test.ts, which drops test databases of dead processes
    for (const name of made) await admin.unsafe(`drop database if exists ${name} with (force)`).catch((err) => console.warn(`drop ${name}: ${err}`))
    await admin.end()
  }, 60_000)

  let migrated: string
  test('migrate-to-postgres copies every table exactly; the app then runs on PostgreSQL', async () => {
    migrated = await emptyDatabase()
    const lines: string[] = []
    expect(await migrateToPostgres([], { DATA_DIR: original, DATABASE_URL: migrated }, (l) => lines.push(l))).toBe(0)
    expect(lines.at(-2)).toMatch(/^Copied \d+ rows in \d+ tables; every table verified/)
    expect(await pgSummary(migrated)).toEqual(tables)
    // a second run would duplicate: refused unless --force
    expect(await migrateToPostgres([], { DATA_DIR: original, DATABASE_URL: migrated }, quiet)).toBe(1)
    expect(await migrateToPostgres(['--force'], { DATA_DIR: original, DATABASE_URL: migrated }, quiet)).toBe(0)
    expect(await pgSummary(migrated)).toEqual(tables)
    await appServesEverything({ DATA_DIR: original, DATABASE_URL: migrated })
  }, 180_000)

  test('pg_dump backup → restore into another database and folder', async () => {
    const archive = join(work, 'postgres-backup.tar.gz')
    const before = await pgSummary(migrated)
    expect(await backup(['create', '--out', archive], { DATA_DIR: original, DATABASE_URL: migrated }, quiet)).toBe(0)
    const target = await emptyDatabase()
    const folder = join(work, 'pg-restored')
    expect(await backup(['restore', archive], { DATA_DIR: folder, DATABASE_URL: target }, quiet)).toBe(0)
    expect(await pgSummary(target)).toEqual(before)
    expect(mediaFiles(folder)).toEqual(mediaFiles(original))
    // into a database that has rows: refused without --force
    expect(await backup(['restore', archive], { DATA_DIR: join(work, 'elsewhere'), DATABASE_URL: target }, quiet)).toBe(1)
    expect(await backup(['restore', archive, '--force'], { DATA_DIR: join(work, 'elsewhere'), DATABASE_URL: target }, quiet)).toBe(0)
    expect(await pgSummary(target)).toEqual(before)
  }, 180_000)

  test('a PGlite backup restores into PostgreSQL', async () => {
    const target = await emptyDatabase()
    const folder = join(work, 'pglite-into-pg')
    expect(await backup(['restore', join(work, 'pglite-backup.tar.gz')], { DATA_DIR: folder, DATABASE_URL: target }, quiet)).toBe(0)
    expect(await pgSummary(target)).toEqual(tables)
    await appServesEverything({ DATA_DIR: folder, DATABASE_URL: target })
  }, 180_000)
})
