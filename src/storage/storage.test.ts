import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestS3, type TestS3 } from '../../tests/support/s3.ts'
import { parseEnv } from '../env.ts'
import { LocalStore } from './local.ts'
import { S3Store } from './s3.ts'
import { createStorage, type Store, StorageRefused, StorageUnavailable } from './index.ts'

let s3: TestS3
const dirs: string[] = []
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'tunefeed-store-'))
  dirs.push(d)
  return d
}
const s3Store = (over: Partial<ConstructorParameters<typeof S3Store>[0]> = {}) =>
  new S3Store({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    prefix: 'app1/',
    virtualHostedStyle: false,
    ...over,
  })

beforeAll(async () => {
  s3 = await startTestS3()
})
afterAll(async () => {
  await s3.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const text = (s: ReadableStream<Uint8Array>) => new Response(s).text()

for (const kind of ['local', 's3'] as const) {
  describe(`${kind} store`, () => {
    let store: Store
    beforeAll(() => {
      store = kind === 'local' ? new LocalStore(tmp()) : s3Store()
    })

    test('put from a file, head, get whole and ranged, list, delete', async () => {
      const src = join(tmp(), 'a.mp3')
      writeFileSync(src, '0123456789')
      await store.putFile('music/u1/j1/output/a b ü.mp3', src, { type: 'audio/mpeg' })
      await store.put('music/u1/j1/artwork.jpg', new TextEncoder().encode('JPEG'))
      await store.put('music/u1/j2/x.txt', new Response('streamed').body!)
      const info = await store.head('music/u1/j1/output/a b ü.mp3')
      expect(info?.size).toBe(10)
      expect(await store.head('music/u1/j1/nothing')).toBeNull()
      expect(await store.get('music/u1/j1/nothing')).toBeNull()
      expect(await text((await store.get('music/u1/j1/output/a b ü.mp3'))!.body)).toBe('0123456789')
      expect(await text((await store.get('music/u1/j1/output/a b ü.mp3', { start: 2, end: 5 }))!.body)).toBe('2345')
      expect(await text((await store.get('music/u1/j2/x.txt'))!.body)).toBe('streamed')
      const keys: string[] = []
      for await (const o of store.list('music/u1/j1/')) keys.push(o.key)
      expect(keys.sort()).toEqual(['music/u1/j1/artwork.jpg', 'music/u1/j1/output/a b ü.mp3'])
      await store.deletePrefix('music/u1/j1/')
      expect(await store.head('music/u1/j1/artwork.jpg')).toBeNull()
      expect(await store.head('music/u1/j2/x.txt')).not.toBeNull()
      await store.delete('music/u1/j2/x.txt')
      await store.delete('music/u1/j2/x.txt')
      expect(await store.head('music/u1/j2/x.txt')).toBeNull()
    })

    test('keys cannot leave the store', async () => {
      await expect(store.put('../escape', new Uint8Array(1))).rejects.toThrow()
    })
  })
}

describe('local store', () => {
  test('`videos/` lives in KEEP_DIR (where media servers read it): put, list, serve path, delete', async () => {
    const data = tmp()
    const keep = tmp()
    const store = createStorage(parseEnv({ DATA_DIR: data, KEEP_DIR: keep })).store
    const key = 'videos/Show [UC1]/Season 2026/Show - 2026-01-02 - T [abcdefghijk].mp4'
    await store.put(key, new TextEncoder().encode('MP4'))
    expect(store.localPath(key)).toBe(join(keep, 'Show [UC1]/Season 2026/Show - 2026-01-02 - T [abcdefghijk].mp4'))
    expect(await Bun.file(join(keep, 'Show [UC1]/Season 2026/Show - 2026-01-02 - T [abcdefghijk].mp4')).text()).toBe('MP4')
    await store.put('music/u/j/a.mp3', new Uint8Array(2))
    expect(await Bun.file(join(data, 'music/u/j/a.mp3')).exists()).toBe(true)
    const keys: string[] = []
    for await (const o of store.list('videos/')) keys.push(o.key)
    expect(keys).toEqual([key])
    await expect(store.put('videos/../../escape', new Uint8Array(1))).rejects.toThrow()
    await store.delete(key)
    expect(await store.head(key)).toBeNull()
    // without KEEP_DIR: DATA_DIR/videos, as before
    expect(createStorage(parseEnv({ DATA_DIR: data })).store.localPath('videos/a.mp4')).toBe(join(data, 'videos/a.mp4'))
  })
})

describe('s3 store', () => {
  test('keys carry S3_PREFIX as given; another prefix sees nothing', async () => {
    const a = s3Store({ prefix: 'one/' })
    await a.put('k.txt', new TextEncoder().encode('x'))
    expect((await s3Store({ prefix: 'two/' }).head('k.txt'))).toBeNull()
    expect((await s3Store({ prefix: '' }).head('one/k.txt'))?.size).toBe(1)
  })

  test('a presigned URL reads the object; a tampered one is refused by the signature check', async () => {
    const store = s3Store()
    await store.put('p.txt', new TextEncoder().encode('presigned'))
    const url = store.presign('p.txt', { seconds: 600 })
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('300')
    expect(await (await fetch(url)).text()).toBe('presigned')
    const before = s3.badSignatures
    expect((await fetch(url.replace('p.txt', 'q.txt'))).status).toBe(403)
    expect(s3.badSignatures).toBe(before + 1)
  })

  test('a wrong secret is refused (StorageRefused), never read', async () => {
    const before = s3.badSignatures
    const bad = s3Store({ secretAccessKey: 'not-the-secret' })
    await expect(bad.put('w.txt', new Uint8Array(1))).rejects.toBeInstanceOf(StorageRefused)
    await expect(bad.head('p.txt')).rejects.toBeInstanceOf(StorageRefused)
    expect(s3.badSignatures).toBeGreaterThan(before)
  })

  test('unreachable and 5xx are StorageUnavailable; the status follows; back up reads ok', async () => {
    const storage = createStorage(parseEnv({ DATA_DIR: tmp(), ...s3.env({ S3_PREFIX: 'st/' }) }))
    await storage.check()
    expect(storage.status()).toMatchObject({ kind: 's3', ok: true, bucket: s3.bucket, endpoint: s3.endpoint, lastError: null })
    expect(JSON.stringify(storage.status())).not.toContain(s3.secretAccessKey)
    await s3.stop()
    try {
      await expect(storage.store.head('x')).rejects.toBeInstanceOf(StorageUnavailable)
      await expect(storage.store.put('x', new Uint8Array(1))).rejects.toBeInstanceOf(StorageUnavailable)
      expect(storage.status().ok).toBe(false)
      expect(storage.status().lastError).toContain('did not answer')
    } finally {
      await s3.start()
    }
    s3.refuse(503)
    try {
      await expect(storage.store.get('x', { start: 0, end: 0 })).rejects.toBeInstanceOf(StorageUnavailable)
    } finally {
      s3.refuse(null)
    }
    await storage.check()
    expect(storage.status().ok).toBe(true)
    storage.stop()
  })

  test('env: STORAGE=s3 needs its settings', () => {
    expect(() => parseEnv({ STORAGE: 's3' })).toThrow(/S3_BUCKET/)
    expect(parseEnv({}).STORAGE).toBe('local')
  })
})
