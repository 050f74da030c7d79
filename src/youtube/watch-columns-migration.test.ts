import { afterAll, expect, test } from 'bun:test'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { MIGRATIONS_FOLDER } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'

// Migration 0010 (docs/decisions/130) gives existing watches their video's channel, category and
// kind: a database migrated up to 0009, with watches, then migrated to the end.
const before = mkdtempSync(join(tmpdir(), 'tunefeed-migrations-'))
afterAll(() => rmSync(before, { recursive: true, force: true }))

test('existing watches take their video’s channel, category and kind', async () => {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: { idx: number; tag: string }[] }
  const entries = journal.entries.filter((e) => e.idx < 10)
  expect(entries.at(-1)!.tag).toBe('0009_feed_gather_index')
  mkdirSync(join(before, 'meta'))
  writeFileSync(join(before, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }))
  for (const e of entries) copyFileSync(join(MIGRATIONS_FOLDER, `${e.tag}.sql`), join(before, `${e.tag}.sql`))

  const client = new PGlite()
  const db = drizzle(client)
  try {
    await migrate(db, { migrationsFolder: before })
    await db.execute(sql`insert into users (id, email, password_hash) values ('00000000-0000-4000-8000-000000000001', 'm@example.com', '!')`)
    await db.execute(sql`insert into youtube_channels (id, title) values ('UCmigration000000000000a', 'A'), ('UCmigration000000000000b', 'B')`)
    await db.execute(sql`
      insert into youtube_videos (id, channel_id, title, published_at, category_id, kind) values
        ('mig00000001', 'UCmigration000000000000a', 'one', now(), 10, 'video'),
        ('mig00000002', 'UCmigration000000000000b', 'two', now(), 20, 'short'),
        ('mig00000003', 'UCmigration000000000000b', 'three', now(), 20, 'live')`)
    await db.execute(sql`
      insert into youtube_watches (user_id, video_id) values
        ('00000000-0000-4000-8000-000000000001', 'mig00000001'), ('00000000-0000-4000-8000-000000000001', 'mig00000002')`)
    await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER })
    const rows = rowsOf<{ video_id: string; channel_id: string; category_id: number; kind: string }>(
      await db.execute(sql`select video_id, channel_id, category_id, kind from youtube_watches order by video_id`),
    )
    expect(rows).toEqual([
      { video_id: 'mig00000001', channel_id: 'UCmigration000000000000a', category_id: 10, kind: 'video' },
      { video_id: 'mig00000002', channel_id: 'UCmigration000000000000b', category_id: 20, kind: 'short' },
    ])
    // and the columns are required from now on
    const bare = async () => db.execute(sql`insert into youtube_watches (user_id, video_id) values ('00000000-0000-4000-8000-000000000001', 'mig00000003')`)
    await expect(bare()).rejects.toThrow()
  } finally {
    await client.close()
  }
})
