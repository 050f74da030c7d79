// Issue 29's closing note: the answer time of sign-up and reset with SMTP down, against the same
// requests with SMTP up (baseline measured in the same run), and the time from SMTP coming back to
// the mail being delivered after outages of several lengths.
//
//   npx bun scripts/bench/mail-outage.ts            (about 2 minutes)
//
// Real SMTP stand-ins on 127.0.0.1 (tests/support/smtp.ts): one that works, a closed port that
// refuses connections, and a server that accepts and never answers.
import { Client, createTestApp } from '../../tests/support/app.ts'
import { closedPort, startSilentServer, startSmtp } from '../../tests/support/smtp.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { setLogLevel } from '../../src/lib/logger.ts'

setLogLevel('silent')

const ROUNDS = 7
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const email = () => `bench-${crypto.randomUUID().slice(0, 8)}@example.com`

async function answerTimes(smtpPort: number) {
  const t = await createTestApp({ smtpUrl: `smtp://127.0.0.1:${smtpPort}?ignoreTLS=1` })
  try {
    const times = { signup: [] as number[], resetKnown: [] as number[], resetUnknown: [] as number[] }
    for (let i = 0; i < ROUNDS; i++) {
      const known = (await quickUser(t)).email
      for (const [key, path, body] of [
        ['signup', '/api/auth/create', { email: email(), password: 'correct horse' }],
        ['resetKnown', '/api/auth/sendreset', { email: known }],
        ['resetUnknown', '/api/auth/sendreset', { email: email() }],
      ] as const) {
        const started = performance.now()
        const res = await new Client(t).post(path, body)
        if (res.status !== 204) throw new Error(`${path}: ${res.status}`)
        times[key].push(performance.now() - started)
      }
    }
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<keyof typeof times, number>
  } finally {
    await t.close()
  }
}

async function deliveryAfter(outageMs: number) {
  const port = await closedPort()
  const t = await createTestApp({ smtpUrl: `smtp://127.0.0.1:${port}?ignoreTLS=1` })
  try {
    const to = email()
    await new Client(t).post('/api/auth/create', { email: to, password: 'correct horse' })
    await Bun.sleep(outageMs)
    const smtp = await startSmtp({ port })
    const back = performance.now()
    await smtp.nextMail(to, { timeoutMs: 120_000 })
    const ms = performance.now() - back
    await smtp.stop()
    return ms
  } finally {
    await t.close()
  }
}

const up = await startSmtp()
const silent = await startSilentServer()
const baseline = await answerTimes(up.port)
const refused = await answerTimes(await closedPort())
const hanging = await answerTimes(silent.port)
await up.stop()
await silent.stop()
const fmt = (x: number) => `${x.toFixed(1)} ms`
console.log(`answer time, median of ${ROUNDS} (ratio to SMTP up in this run):`)
for (const key of ['signup', 'resetKnown', 'resetUnknown'] as const) {
  console.log(
    `  ${key.padEnd(13)} SMTP up ${fmt(baseline[key])} · refused ${fmt(refused[key])} (${(refused[key] / baseline[key]).toFixed(2)}×) · never answers ${fmt(hanging[key])} (${(hanging[key] / baseline[key]).toFixed(2)}×)`,
  )
}
console.log('time from SMTP back to the mail delivered:')
for (const outage of [2_000, 10_000, 45_000]) console.log(`  after ${outage / 1000} s down: ${fmt(await deliveryAfter(outage))}`)
process.exit(0)
