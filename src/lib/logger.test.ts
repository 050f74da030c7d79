import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { users } from '../auth/tables.ts'
import type { Database } from '../db/client.ts'
import { createTestDatabase } from '../../tests/support/db.ts'
import { errorFields, redactPath, requestLevel } from './logger.ts'

// What reaches the log must not carry secrets: query parameters of a failed
// query, the token in a verification link's path.

describe('errorFields of a failed query (real database)', () => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase()
  }, 60_000)
  afterAll(() => database?.close())

  const failure = async (run: () => Promise<unknown>) => {
    const err = await run().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(Error)
    return errorFields(err)
  }

  test('a constraint violation: SQL and reason, no parameter values', async () => {
    const row = { id: crypto.randomUUID(), email: 'secret-owner@example.com', passwordHash: 'secret-hash-value' }
    await database.db.insert(users).values(row)
    const fields = await failure(() => database.db.insert(users).values({ ...row, id: crypto.randomUUID() }))
    const text = JSON.stringify(fields)
    expect(fields.error).toContain('insert into "users"')
    expect(text).toContain('SQLSTATE 23505')
    expect(text).not.toContain('secret-owner@example.com')
    expect(text).not.toContain('secret-hash-value')
  })

  test('a value PostgreSQL would quote in its own message is not logged either', async () => {
    const fields = await failure(() => database.db.execute(sql`select ${'token-abc123'}::int`))
    const text = JSON.stringify(fields)
    expect(text).toContain('SQLSTATE 22P02')
    expect(text).not.toContain('token-abc123')
  })

  test('other errors are logged as they are', () => {
    expect(errorFields(new Error('plain'))).toMatchObject({ error: 'plain' })
    expect(errorFields('text')).toEqual({ error: 'text' })
  })
})

test('token paths are redacted in the request log', () => {
  expect(redactPath('/verify/abcdefghijklmnop')).toBe('/verify/[redacted]')
  expect(redactPath('/verify/abc/more')).toBe('/verify/[redacted]/more')
  expect(redactPath('/api/youtube/videos/x')).toBe('/api/youtube/videos/x')
  expect(redactPath('/verifyx/abc')).toBe('/verifyx/abc')
  // a podcast feed's secret (issue 32, finding 5)
  expect(redactPath('/feeds/Ab-_0123456789abcdefghijklmnopqrstuv/all.xml')).toBe('/feeds/[redacted]/all.xml')
  expect(redactPath('/feeds/secret/audio/abcdefghijk.mp3')).toBe('/feeds/[redacted]/audio/abcdefghijk.mp3')
  expect(redactPath('/feedsx/abc')).toBe('/feedsx/abc')
  // a WebSub callback's token
  expect(redactPath('/websub/Ab-_0123456789abcdefghijklmnopqrstuv')).toBe('/websub/[redacted]')
})

test('static files answered fine are logged at debug; pages, API, feeds, Subsonic and failures at info', () => {
  expect(requestLevel('/assets/index-abc.js', 200)).toBe('debug')
  expect(requestLevel('/sw.js', 200)).toBe('debug')
  expect(requestLevel('/manifest.webmanifest', 200)).toBe('debug')
  // pages stay: a visit is one line
  expect(requestLevel('/music/downloader', 200)).toBe('info')
  expect(requestLevel('/verify/[redacted]', 200)).toBe('info')
  expect(requestLevel('/favicon.svg', 304)).toBe('debug')
  expect(requestLevel('/assets/missing.js', 404)).toBe('info')
  expect(requestLevel('/api/music/jobs/list', 200)).toBe('info')
  expect(requestLevel('/rest/ping.view', 200)).toBe('info')
  expect(requestLevel('/feeds/x/all.xml', 200)).toBe('info')
})
