import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Database } from '../../db/client.ts'
import { parseEnv } from '../../env.ts'
import { youtubeVideoCategories, youtubeVideos } from '../../youtube/tables.ts'
import { createTestDatabase } from '../../../tests/support/db.ts'
import { startTestFake } from '../../../tests/support/youtube.ts'
import { CommandError, UsageError, type CommandContext } from './command.ts'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { youtubeCommands } from './youtube.ts'

// The commands' logic on a test database (scripts/admin.test.ts runs the CLI as a process).
let fake: FakeYoutube
let database: Database
let lines: string[] = []
let ctx: CommandContext
beforeAll(async () => {
  fake = await startTestFake()
  database = await createTestDatabase()
  ctx = {
    env: parseEnv({ ...fake.env, YOUTUBE_RETRY_BASE_MS: '1', LOG_LEVEL: 'silent' }),
    database: async () => database,
    context: () => Promise.reject(new Error('the youtube commands run without a queue')),
    out: (line) => lines.push(line),
  }
}, 60_000)
afterAll(async () => {
  await database.close()
  await fake.stop()
})

const run = (name: string, ...args: string[]) => {
  lines = []
  return youtubeCommands[name]!.run(args, ctx)
}

describe('youtube CLI commands', () => {
  test('refresh one channel (fetched first when unknown), categories, quota', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    await run('youtube-refresh-channels', kitchen.id)
    expect(lines[0]).toContain('"status":"done"')
    expect(await database.db.select().from(youtubeVideos)).toHaveLength(kitchen.uploads.length)
    await run('youtube-refresh-categories')
    expect(lines).toEqual(['32 categories.'])
    expect(await database.db.select().from(youtubeVideoCategories)).toHaveLength(32)
    await run('youtube-quota')
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \(Pacific\): 3 of 10000 units in 3 calls; resets /)
  })

  test('refresh all followed channels; nothing followed is nothing to do', async () => {
    await run('youtube-refresh-channels', '--date-after=20200101')
    expect(lines).toEqual(['Refreshed 0 channels, 0 new videos.'])
  })

  test('bad arguments are usage errors; a quota stop is a failure with its cause', async () => {
    await expect(run('youtube-refresh-channels', 'nope')).rejects.toBeInstanceOf(UsageError)
    await expect(run('youtube-refresh-channels', '--date-after=2020-01-01')).rejects.toBeInstanceOf(UsageError)
    await expect(run('youtube-refresh-channels', '--force')).rejects.toBeInstanceOf(UsageError)
    await expect(run('youtube-sync-subscriptions', 'not-an-email')).rejects.toBeInstanceOf(UsageError)
    await expect(run('youtube-sync-subscriptions', 'nobody@example.com')).rejects.toBeInstanceOf(CommandError)
    fake.quota = fake.units
    const star = fake.channel('@star-lab')
    await expect(run('youtube-refresh-channels', star.id)).rejects.toThrow('YouTube answered quotaExceeded.')
    await run('youtube-quota')
    expect(lines[1]).toMatch(/^Stopped since .*: YouTube answered quotaExceeded\.$/)
    fake.reset()
  })
})
