#!/usr/bin/env bun
/**
 * Storage benchmark (a benchmark, not a test): the app on STORAGE=s3 against
 * the test store on loopback (s3rver behind the SigV4 check,
 * tests/support/s3.ts), in one run:
 *
 *  1. first byte of a 64 KiB range request through the app (GET /api/music/jobs/{id}/download,
 *     the app served on a real port) vs the same range read directly from the store with the
 *     same client (Bun.S3Client through src/storage/s3.ts); median of --runs each.
 *  2. a 100 MB kept file streamed whole through the app vs straight from the store (MB/s).
 *
 *   bun scripts/bench/storage.ts [--runs 30] [--mb 100]
 *
 * Goals (issue 34): first byte through the app ≤ 1.5× direct; streaming ≥ 0.8× the store's own.
 */
import { parseArgs } from 'node:util'
import { eq } from 'drizzle-orm'
import { createApp } from '../../src/app.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { musicJobs } from '../../src/music/tables.ts'
import { jobKey } from '../../src/music/stored.ts'
import { S3Store } from '../../src/storage/s3.ts'
import { createTestApp, signUp } from '../../tests/support/app.ts'
import { startTestS3 } from '../../tests/support/s3.ts'
import { users } from '../../src/tables.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, mb: { type: 'string', default: '100' } } })
const runs = Number(values.runs)
const size = Number(values.mb) * 1024 * 1024
setLogLevel('silent')

const s3 = await startTestS3()
const t = await createTestApp({ env: s3.env({ S3_PREFIX: 'bench/' }) })
const { client, email } = await signUp(t)
const [user] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email))
const jobId = crypto.randomUUID()
const outputFile = 'output/Bench - File.mp3'
await t.ctx.db.insert(musicJobs).values({ id: jobId, userId: user!.id, title: 'File', artist: 'Bench', album: 'Bench', outputFile, completed: new Date() } as typeof musicJobs.$inferInsert)
const key = jobKey(user!.id, jobId, outputFile)
const store = new S3Store({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: 'bench/', virtualHostedStyle: false })
const bytes = new Uint8Array(size)
for (let i = 0; i < size; i += 4096) bytes[i] = i & 0xff
await store.put(key, bytes, { type: 'audio/mpeg' })

const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: createApp(t.ctx).fetch, idleTimeout: 120 })
const url = `http://127.0.0.1:${server.port}/api/music/jobs/${jobId}/download`
const headers = { cookie: client.cookie!, range: '' }

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function firstByteApp(start: number): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(url, { headers: { ...headers, range: `bytes=${start}-${start + 65535}` } })
  const reader = res.body!.getReader()
  await reader.read()
  const ms = performance.now() - t0
  await reader.cancel()
  if (res.status !== 206) throw new Error(`app answered ${res.status}`)
  return ms
}

async function firstByteDirect(start: number): Promise<number> {
  const t0 = performance.now()
  const got = await store.get(key, { start, end: start + 65535 })
  const reader = got!.body.getReader()
  await reader.read()
  const ms = performance.now() - t0
  await reader.cancel()
  return ms
}

async function streamed(read: () => Promise<ReadableStream<Uint8Array>>): Promise<number> {
  const t0 = performance.now()
  let n = 0
  for await (const chunk of await read()) n += chunk.length
  if (n !== size) throw new Error(`read ${n} of ${size} bytes`)
  return size / 1024 ** 2 / ((performance.now() - t0) / 1000)
}

// warm both paths, then alternate so both see the same machine load
await firstByteApp(0)
await firstByteDirect(0)
const app: number[] = []
const direct: number[] = []
for (let i = 0; i < runs; i++) {
  const start = Math.floor(Math.random() * (size - 65536))
  direct.push(await firstByteDirect(start))
  app.push(await firstByteApp(start))
}
const appMbs: number[] = []
const directMbs: number[] = []
for (let i = 0; i < 3; i++) {
  directMbs.push(await streamed(async () => (await store.get(key))!.body))
  appMbs.push(await streamed(async () => (await fetch(url, { headers: { cookie: client.cookie! } })).body!))
}
const fb = median(app) / median(direct)
const tp = median(appMbs) / median(directMbs)
console.log(`first byte of a 64 KiB range (median of ${runs}): app ${median(app).toFixed(2)} ms, store ${median(direct).toFixed(2)} ms, ratio ${fb.toFixed(2)} (goal ≤ 1.5)`)
console.log(`${values.mb} MB streamed (median of 3): app ${median(appMbs).toFixed(0)} MB/s, store ${median(directMbs).toFixed(0)} MB/s, ratio ${tp.toFixed(2)} (goal ≥ 0.8)`)
console.log(`bad signatures seen by the store: ${s3.badSignatures}`)
server.stop(true)
await t.close()
await s3.close()
process.exit(0)
