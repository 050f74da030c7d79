import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { startFakeYoutube, type FakeYoutube } from '../../scripts/fake-youtube.ts'
import type { AppContext } from '../../src/context.ts'
import { BunqueueJobs } from '../../src/jobs/queue.ts'
import type { JobModule } from '../../src/jobs/types.ts'
import { makeTone } from '../support/media.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'
import { createMusicJob, HttpClient, listMusicJobs, openListenSocket, signUp, waitForMusicJobs } from './support.ts'
import { startBunqueueServer, tempDatabase, type BunqueueServer, type TempDatabase } from './scale-support.ts'

// Several app processes on one PostgreSQL and one bunqueue server (itself on
// PostgreSQL): every job runs once, in one of them; a process killed with
// SIGKILL mid-job loses nothing (its job is run by another); WebSocket events
// reach a browser whichever process did the work; schedules fire once per
// period however many processes registered them.

const adminUrl = process.env.TEST_DATABASE_URL
const JOBS = 20

describe.skipIf(!adminUrl)('several app processes', () => {
  const work = mkdtempSync(join(tmpdir(), 'tunefeed-scale-'))
  const dataDir = join(work, 'data') // shared media folder, as on one machine (or a shared volume)
  let appDb: TempDatabase
  let queueDb: TempDatabase
  let queue: BunqueueServer
  let youtube: FakeYoutube
  let a: ServerProcess
  let b: ServerProcess
  let env: Record<string, string>

  const start = () => startServerProcess(env, 120_000)

  beforeAll(async () => {
    appDb = await tempDatabase(adminUrl!)
    queueDb = await tempDatabase(adminUrl!)
    queue = await startBunqueueServer(queueDb.url, work)
    youtube = await startFakeYoutube({ port: 0 })
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: appDb.url,
      QUEUE_URL: queue.url,
      JOB_CONCURRENCY: '2',
      LOG_LEVEL: 'debug',
      SCHEDULER: 'true',
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      ...youtube.env,
    }
    // the first start migrates; then two processes at once
    a = await start()
    b = await start()
  }, 240_000)

  afterAll(async () => {
    for (const p of [a, b]) if (p && p.proc.exitCode === null) await p.stop('SIGKILL')
    await youtube?.stop()
    await queue?.stop()
    // a failed drop is left to scripts/test.ts, which drops test databases of dead processes
    for (const db of [appDb, queueDb]) await db?.drop().catch((err) => console.warn(`drop: ${err}`))
    rmSync(work, { recursive: true, force: true })
  }, 60_000)

  /** Job ids each process logged as started / done (LOG_LEVEL=debug). */
  const logged = (p: ServerProcess, msg: 'job started' | 'job done') =>
    p
      .stdout()
      .split('\n')
      .filter((l) => l.includes(`"msg":"${msg}"`) && l.includes('"job":"music.run"'))
      .map((l) => (JSON.parse(l) as { id: string }).id)

  test(`${JOBS} music jobs through both; one process killed mid-job; each job ends exactly once; every socket hears`, async () => {
    const viaA = new HttpClient(a.url)
    await signUp(viaA, join(dataDir, 'mail'), 'scale@example.com')
    // the session made on A is good on B: sessions live in the database
    const viaB = viaA.at(b.url)
    expect((await viaB.request('/api/auth/session')).status).toBe(200)

    const socketA = await openListenSocket(viaA)
    const socketB = await openListenSocket(viaB)

    // 30 s of audio per job: long enough to be caught mid-run
    const wav = join(work, 'tone.wav')
    await makeTone(wav, 30, 'wav')
    const ids: string[] = []
    for (let i = 0; i < JOBS; i++) ids.push(await createMusicJob(i % 2 ? viaB : viaA, wav, { title: `Job ${i}` }))

    // kill A while it runs a job, once its socket has heard a job that B ran (cross-process events)
    const completedOn = (socket: typeof socketA) => socket.messages.filter((m) => m.status === 'COMPLETED').map((m) => ('id' in m ? m.id : ''))
    const until = Date.now() + 60_000
    for (;;) {
      const done = new Set(logged(a, 'job done'))
      const running = logged(a, 'job started').filter((id) => !done.has(id))
      const heardFromB = completedOn(socketA).some((id) => logged(b, 'job done').includes(id))
      if (running.length && heardFromB) break
      if (Date.now() > until) throw new Error(`A never ran a job while B had finished one\n${a.stdout().slice(-3000)}`)
      await Bun.sleep(20)
    }
    await a.stop('SIGKILL')
    // every job A had started and not finished (JOB_CONCURRENCY=2: one or two)
    const victims = [...new Set(logged(a, 'job started'))].filter((id) => !logged(a, 'job done').includes(id))
    expect(victims.length).toBeGreaterThanOrEqual(1)

    const jobs = await waitForMusicJobs(viaB, ids, 120_000)
    expect(jobs.filter((j) => j.failed)).toEqual([])
    expect(jobs.every((j) => j.completed && j.downloadUrl)).toBe(true)

    // every event has reached B's socket (NOTIFY from A, local from B)
    await Promise.all(ids.map((id) => socketB.waitFor((m) => 'id' in m && m.id === id && m.status === 'COMPLETED', 30_000)))

    // exactly once. The queue delivers at least once: a job A finished just before the kill, whose
    // acknowledgement died with it, is delivered again, and the handler finds it done and returns
    // (idempotent: no STARTED, no second COMPLETED). So a real run is what publishes STARTED.
    const doneA = logged(a, 'job done')
    const doneB = logged(b, 'job done')
    expect(ids.filter((id) => !doneA.includes(id) && !doneB.includes(id))).toEqual([])
    expect(victims.filter((id) => !doneB.includes(id))).toEqual([]) // killed mid-run, then run by the other process
    expect(logged(a, 'job started').length).toBeGreaterThan(0) // both processes did work
    expect(doneB.length).toBeGreaterThan(0)
    const startedEvents = (id: string) => socketB.messages.filter((m) => 'id' in m && m.id === id && m.status === 'STARTED').length
    expect(ids.filter((id) => !victims.includes(id) && startedEvents(id) !== 1).map((id) => ({ id, started: startedEvents(id) }))).toEqual([])
    // a victim: B's run, and A's if its NOTIFY left before the kill
    expect(victims.filter((id) => startedEvents(id) < 1 || startedEvents(id) > 2)).toEqual([])

    // B's socket heard every job complete, once, including the ones A ran (through NOTIFY)
    const completedOnB = socketB.messages.filter((m) => m.status === 'COMPLETED').map((m) => ('id' in m ? m.id : ''))
    expect(completedOnB.sort()).toEqual([...ids].sort())
    socketB.close()

    // nothing lost: every mp3 is there, served by the survivor
    for (const job of jobs) {
      const mp3 = await viaB.request(job.downloadUrl!)
      expect(mp3.status).toBe(200)
      expect((await mp3.arrayBuffer()).byteLength).toBeGreaterThan(100_000)
    }
    expect((await listMusicJobs(viaB)).length).toBe(JOBS)
  }, 300_000)

  test('a channel refresh through both: queued on one, heard on both, videos on both', async () => {
    a = await start() // A comes back after the kill
    const viaA = new HttpClient(a.url)
    expect((await viaA.json('/api/auth/login', { email: 'scale@example.com', password: 'password123' })).status).toBe(200)
    const viaB = new HttpClient(b.url)
    expect((await viaB.json('/api/auth/login', { email: 'scale@example.com', password: 'password123' })).status).toBe(200)
    const onA = await openListenSocket(viaA, '/api/youtube/channel/listen')
    const onB = await openListenSocket(viaB, '/api/youtube/channel/listen')

    const res = await viaA.request('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen', { method: 'PUT' })
    expect(res.status).toBe(200)
    const { id } = (await res.json()) as { id: string }
    for (const socket of [onA, onB]) {
      await socket.waitFor((m) => (m as unknown as { id?: string; updating?: boolean }).id === id && (m as unknown as { updating?: boolean }).updating === true, 30_000)
      await socket.waitFor((m) => (m as unknown as { id?: string; updating?: boolean }).id === id && (m as unknown as { updating?: boolean }).updating === false, 30_000)
    }
    onA.close()
    onB.close()
    const lists = await Promise.all(
      [viaA, viaB].map(async (c) => ((await (await c.request('/api/youtube/videos/list?page=1&per_page=50')).json()) as { videos: { id: string }[] }).videos.length),
    )
    expect(lists[0]).toBe(12) // @tiny-kitchen has 12 uploads
    expect(lists[1]).toBe(12)
  }, 120_000)

  test('/metrics on each process: requests, jobs, sockets, quota', async () => {
    for (const p of [a, b]) {
      expect((await fetch(`${p.url}/api/health`)).status).toBe(200)
      const res = await fetch(`${p.url}/metrics`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/plain')
      const text = await res.text()
      expect(text).toMatch(/^tunefeed_http_requests_total\{method="GET",route="\/api\/health",status="200"\} \d+$/m)
      expect(text).toMatch(/^tunefeed_http_request_duration_seconds_bucket\{.*le="\+Inf"\} \d+$/m)
      expect(text).toMatch(/^tunefeed_jobs\{state="waiting"\} \d+$/m)
      expect(text).toMatch(/^tunefeed_websocket_clients \d+$/m)
      expect(text).toMatch(/^tunefeed_youtube_quota_units_used\{day="[\d-]+"\} \d+$/m)
      expect(text).toContain('tunefeed_info{version="source",database="postgres",queue="server"} 1')
    }
    const textB = await (await fetch(`${b.url}/metrics`)).text()
    expect(textB).toMatch(/^tunefeed_jobs_finished_total\{job="music.run",outcome="completed"\} \d+$/m)
    expect(textB).toMatch(/^tunefeed_job_duration_seconds_count\{job="music.run",outcome="completed"\} \d+$/m)
  })

  test('a schedule registered by two processes fires once per period', async () => {
    const runs: number[] = []
    const tick = { name: 'test.tick', payload: z.object({}), run: async () => void runs.push(Date.now()) }
    const module: JobModule = { definitions: [tick], schedules: [{ id: 'test.tick.every-second', job: tick, payload: {}, everyMs: 1000 }] }
    const queueName = `scale-test-${crypto.randomUUID().slice(0, 8)}`
    const connection = { host: '127.0.0.1', port: queue.port }
    const config = { dataPath: join(work, 'unused.db'), connection, queueName, concurrency: 2, defaultTimeoutMs: 10_000, scheduler: true }
    const one = new BunqueueJobs([module], config)
    const two = new BunqueueJobs([module], config)
    const ctx = {} as AppContext
    await one.start(ctx)
    await two.start(ctx)
    try {
      await Bun.sleep(6500)
      expect(await one.schedules()).toEqual(['test.tick.every-second'])
    } finally {
      await one.stop()
      await two.stop()
    }
    // about six runs in 6.5 s (two processes each firing would give about twelve)
    expect(runs.length).toBeGreaterThanOrEqual(4)
    expect(runs.length).toBeLessThanOrEqual(8)
    const gaps = runs.slice(1).map((t, i) => t - runs[i]!)
    expect(Math.min(...gaps)).toBeGreaterThan(500)
  }, 30_000)
})
