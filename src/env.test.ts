import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../tests/support/server-process.ts'
import { EnvError, parseEnv, serverStartProblem } from './env.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

describe('parseEnv', () => {
  test('defaults', () => {
    const env = parseEnv({})
    expect(env.PORT).toBe(3000)
    expect(env.DATA_DIR).toBe('./data')
    expect(env.DATABASE_URL).toBeUndefined()
    expect(env.TRUST_PROXY).toBe(false)
    expect(env.MAX_JSON_BYTES).toBe(64 * 1024)
    expect(env.FETCH_ALLOW_HOSTS).toBe('')
  })

  test('values are coerced; empty strings mean unset', () => {
    const env = parseEnv({ PORT: '8080', TRUST_PROXY: 'yes', RATE_LIMIT_MAX: '3', SMTP_URL: '', DATABASE_URL: 'postgres://u:p@127.0.0.1/db' })
    expect(env.PORT).toBe(8080)
    expect(env.TRUST_PROXY).toBe(true)
    expect(env.RATE_LIMIT_MAX).toBe(3)
    expect(env.SMTP_URL).toBeUndefined()
    expect(env.DATABASE_URL).toBe('postgres://u:p@127.0.0.1/db')
  })

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['APP_SECRET', 'too-short'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['PUBLIC_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'maybe'],
    ['NODE_ENV', 'staging'],
    ['MAX_JSON_BYTES', '0'],
    ['RATE_LIMIT_MAX', '1.5'],
    ['JOB_CONCURRENCY', 'many'],
  ])('%s=%s fails with a message naming the variable', (name, value) => {
    let error: unknown
    try {
      parseEnv({ [name]: value })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(EnvError)
    expect((error as Error).message).toStartWith('Invalid configuration:')
    expect((error as Error).message).toContain(`${name}:`)
  })

  test('several bad variables are all named at once', () => {
    expect(() => parseEnv({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT:[\s\S]*LOG_LEVEL:|LOG_LEVEL:[\s\S]*PORT:/)
  })
})

describe('the app process with a bad variable', () => {
  test('exits 1 before opening anything, naming the variable on stderr', async () => {
    const dataDir = join(tmpdir(), `tunefeed-env-${crypto.randomUUID()}`)
    const { code, stderr, stdout } = await run([process.execPath, 'src/index.ts'], { PORT: 'not-a-port', DATA_DIR: dataDir })
    expect(code).toBe(1)
    expect(stderr).toContain('Invalid configuration:')
    expect(stderr).toContain('PORT:')
    expect(stdout).not.toContain('listening')
    // nothing was created
    expect(await Bun.file(`${dataDir}/secret`).exists()).toBe(false)
  })
})

describe('PUBLIC_URL in production', () => {
  test('required with NODE_ENV=production, and by the binary unless NODE_ENV says otherwise', () => {
    expect(serverStartProblem({ binary: false }, { NODE_ENV: 'production' })).toContain('PUBLIC_URL is required in production')
    expect(serverStartProblem({ binary: true }, {})).toContain('PUBLIC_URL is required in production')
    expect(serverStartProblem({ binary: true }, { PUBLIC_URL: 'https://music.example.org' })).toBeNull()
    expect(serverStartProblem({ binary: false }, { NODE_ENV: 'production', PUBLIC_URL: 'https://music.example.org' })).toBeNull()
    expect(serverStartProblem({ binary: true }, { NODE_ENV: 'development' })).toBeNull()
    expect(serverStartProblem({ binary: false }, {})).toBeNull()
  })

  test('the server refuses to start without it, saying so; nothing is created', async () => {
    const dataDir = join(tmpdir(), `tunefeed-env-${crypto.randomUUID()}`)
    const { code, stderr, stdout } = await run([process.execPath, 'src/index.ts'], { NODE_ENV: 'production', DATA_DIR: dataDir })
    expect(code).toBe(1)
    expect(stderr).toContain('PUBLIC_URL is required in production')
    expect(stdout).not.toContain('listening')
    expect(await Bun.file(dataDir).exists()).toBe(false)
  })
})
