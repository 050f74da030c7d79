#!/usr/bin/env bun
/**
 * The whole test suite, as CI runs it (`npm test`, which is `bun scripts/test.ts`).
 *
 *  1. Installs the Debian packages the tests use when any is missing
 *     (APT_PACKAGES below; needs root).
 *  2. Builds the web app (`bun run build:web`) when web/dist is missing or
 *     older than its sources. A web app that does not build is a failure.
 *  3. Starts Debian's PostgreSQL cluster on 127.0.0.1 with a `tunefeed` role
 *     (skipped when TEST_DATABASE_URL is already set).
 *  4. Runs the suites below: the server-side test files on PGlite and, at the
 *     same time, the server tests (src/) again on PostgreSQL (SERVER_WORKERS
 *     files at once, one by default); then the browser tests (tests/e2e, on
 *     PGlite; BROWSER_WORKERS); the deployment tests
 *     (tests/deploy, with PostgreSQL); plus web/'s own tests if it has any. The browser suite's
 *     failing files (at most three) run once more; a pass then is reported
 *     FLAKY with the first failures (docs/decisions/213-browser-rerun.md).
 *  4b. Checks: `tsc` on the server (root tsconfig) and on web/ (after Panda's
 *     codegen when web/styled-system is missing), and the Biome lint (biome.json:
 *     recommended rules plus the import boundaries). Each check counts as one
 *     passed or one failed test, and a failure names its first errors.
 *  5. Prints `N passed, N failed` as its last line (sum over the suites) and
 *     exits non-zero when anything failed.
 *
 * Counts come from bun's JUnit reporter; a suite that exits non-zero without a
 * failing test in its report (a file that does not load, a crash) counts as
 * one failure, so nothing is lost.
 *
 * Options: --skip-setup (no apt, no web build: for a quick local run),
 * --only=<suite name substring>.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterRerun, failingCases, filesToRerun, type Outcome, outcomeOf, slowestFiles } from './junit.ts'
import { buildWebIfNeeded } from './web-build.ts'

const ROOT = join(import.meta.dir, '..')
const OUT = join(ROOT, 'test-results')
const APT_PACKAGES = ['postgresql', 'chromium', 'ffmpeg', 'yt-dlp', 'rclone', 'caddy', 'unzip', 'supysonic', 'gpodder', 'sublime-music', 'xvfb', 'xauth', 'dbus-daemon']
const PG_ROLE = 'tunefeed'
const PG_PASSWORD = 'tunefeed-test'
const PG_DB = 'tunefeed'
const BUN_TEST_TIMEOUT_MS = 60_000
/**
 * Test files at once per suite (bun test --parallel; docs/decisions/315-suite-in-parallel.md).
 * One by default: with bun's per-file isolation every file migrated its own PGlite again, and
 * three workers were slower than one (67 of 130 server files in 14 minutes). TEST_WORKERS and
 * TEST_BROWSER_WORKERS set more.
 */
const SERVER_WORKERS = Number(process.env.TEST_WORKERS ?? 1) || 1
const BROWSER_WORKERS = Number(process.env.TEST_BROWSER_WORKERS ?? 1) || 1

const args = new Set(process.argv.slice(2))
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length)
const skipSetup = args.has('--skip-setup')

const outcomes: Outcome[] = []

const step = (title: string) => console.log(`\n=== ${title} ===`)
const isRoot = () => process.getuid?.() === 0

/** This process's environment with `extra` over it (`undefined` removes a variable). */
function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, ...extra })) if (v !== undefined) env[k] = v
  return env
}

/** Runs a command with inherited output; returns its exit code. `undefined` in env removes a variable. */
function sh(cmd: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}): number {
  const env = childEnv(opts.env)
  const res = spawnSync(cmd[0]!, cmd.slice(1), { cwd: opts.cwd ?? ROOT, env, stdio: 'inherit' })
  if (res.error) {
    console.error(`${cmd[0]}: ${res.error.message}`)
    return 127
  }
  return res.status ?? 1
}

/** Runs a command and returns its stdout (stderr passes through). */
function capture(cmd: string[], input?: string): { code: number; out: string } {
  const res = spawnSync(cmd[0]!, cmd.slice(1), { cwd: ROOT, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'inherit'] })
  return { code: res.error ? 127 : (res.status ?? 1), out: res.stdout ?? '' }
}

// --- 1. Debian packages ---------------------------------------------------

function missingPackages(): string[] {
  return APT_PACKAGES.filter((pkg) => {
    const { code, out } = capture(['dpkg-query', '-W', '-f=${Status}', pkg])
    return code !== 0 || !out.includes('install ok installed')
  })
}

function installPackages(): string | null {
  const missing = missingPackages()
  if (missing.length === 0) {
    console.log(`all present: ${APT_PACKAGES.join(' ')}`)
    return null
  }
  console.log(`missing: ${missing.join(' ')}`)
  if (!isRoot()) return `Debian packages missing (${missing.join(' ')}) and not running as root to install them`
  const env = { DEBIAN_FRONTEND: 'noninteractive' }
  if (sh(['apt-get', 'update'], { env }) !== 0) return 'apt-get update failed'
  if (sh(['apt-get', 'install', '-y', '--no-install-recommends', ...missing], { env }) !== 0) return `apt-get install ${missing.join(' ')} failed`
  const still = missingPackages()
  return still.length ? `still missing after apt-get install: ${still.join(' ')}` : null
}

// --- 2. Web build ------------------------------------------------------------

function buildWeb(): string | null {
  const error = buildWebIfNeeded()
  return error && `${error}; the web app must build for the suite to pass`
}

// --- 3. PostgreSQL -----------------------------------------------------------

const psql = (sql: string, db = 'postgres') =>
  capture(['su', 'postgres', '-c', `psql -X -q -v ON_ERROR_STOP=1 -d ${db} -At -f -`], sql)

function startPostgres(): { url?: string; error?: string } {
  if (process.env.TEST_DATABASE_URL) {
    console.log('using TEST_DATABASE_URL from the environment')
    return { url: process.env.TEST_DATABASE_URL }
  }
  if (!isRoot()) return { error: 'not root: cannot start the local PostgreSQL (set TEST_DATABASE_URL to use another server)' }
  const clusters = capture(['pg_lsclusters', '--no-header'])
  if (clusters.code !== 0) return { error: 'pg_lsclusters failed: is postgresql installed?' }
  // "15  main    5432 down   postgres /var/lib/postgresql/15/main /var/log/..."
  let line = clusters.out.split('\n').find((l) => l.trim())
  if (!line) {
    const version = readdirSync('/usr/lib/postgresql').sort().at(-1)
    if (!version || sh(['pg_createcluster', version, 'main']) !== 0) return { error: 'no PostgreSQL cluster and pg_createcluster failed' }
    line = capture(['pg_lsclusters', '--no-header']).out.split('\n').find((l) => l.trim())!
  }
  const [version, name, port, status] = line.trim().split(/\s+/)
  if (!status?.startsWith('online')) {
    // listen on loopback only, whatever the cluster's configuration says
    const code = sh(['pg_ctlcluster', version!, name!, 'start', '--', '-o', "-c listen_addresses='127.0.0.1'"])
    if (code !== 0) return { error: `pg_ctlcluster ${version} ${name} start failed` }
  }
  console.log(`PostgreSQL ${version}/${name} on 127.0.0.1:${port}`)
  const setup = psql(`
    do $$ begin
      if not exists (select from pg_roles where rolname = '${PG_ROLE}') then
        create role ${PG_ROLE} login createdb password '${PG_PASSWORD}';
      else
        alter role ${PG_ROLE} login createdb password '${PG_PASSWORD}';
      end if;
    end $$;
    -- test databases are dropped with their connections, an autovacuum worker's included
    grant pg_signal_backend to ${PG_ROLE};
    select 'create database ${PG_DB} owner ${PG_ROLE}' where not exists (select from pg_database where datname = '${PG_DB}') \\gexec
  `)
  if (setup.code !== 0) return { error: 'could not create the tunefeed role and database' }
  dropStaleTestDatabases()
  return { url: `postgres://${PG_ROLE}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DB}` }
}

/** Test databases are named tf_test_<pid>_* / tf_template_<pid>: drop those whose process is gone. */
function dropStaleTestDatabases() {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'
    }
  }
  const names = psql(`select datname from pg_database where datname ~ '^tf_(test|template)_[0-9]+'`).out.split('\n').filter(Boolean)
  const stale = names.filter((n) => !alive(Number(/^tf_(?:test|template)_(\d+)/.exec(n)![1])))
  if (stale.length === 0) return
  console.log(`dropping ${stale.length} test database(s) left by earlier runs`)
  psql(stale.map((n) => `drop database if exists "${n}" with (force);`).join('\n'))
}

// --- 4. Suites ---------------------------------------------------------------

/**
 * The `bun test` command line of a suite, writing its JUnit report to `report`; with `workers`
 * above 1, its files run in that many processes at once (bun's --parallel: each file still has
 * its own module registry, databases and servers; docs/decisions/315-suite-in-parallel.md).
 */
function bunTestCommand(report: string, testArgs: string[], workers = 1): string[] {
  const parallel = workers > 1 ? [`--parallel=${workers}`] : []
  return [process.execPath, 'test', `--timeout=${BUN_TEST_TIMEOUT_MS}`, ...parallel, '--reporter=junit', `--reporter-outfile=${report}`, ...testArgs]
}

/** test-results/<suite name as a file name>.<ext> */
const outPath = (name: string, ext: 'xml' | 'log') => join(OUT, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.${ext}`)
const reportPath = (name: string) => outPath(name, 'xml')

interface Suite {
  name: string
  args: string[]
  /** Failing files run once more (the browser tests: a page's timing on a loaded machine). */
  rerunFailedFiles?: boolean
  /** Files run at once (bun test --parallel); 1 or unset: one after the other. */
  workers?: number
  env?: Record<string, string | undefined>
  cwd?: string
}

function runBunTest(suite: Suite) {
  if (only && !suite.name.includes(only)) return
  step(`bun test: ${suite.name}`)
  const report = reportPath(suite.name)
  rmSync(report, { force: true })
  const started = performance.now()
  const code = sh(bunTestCommand(report, suite.args, suite.workers), suite)
  const outcome = outcomeOf(suite.name, code, report, (performance.now() - started) / 1000)
  outcomes.push(suite.rerunFailedFiles && outcome.failed > 0 ? rerunFailedFiles(suite, report, outcome) : outcome)
}

/** The browser suite's failing files, run once more on their own (scripts/junit.ts, afterRerun). */
function rerunFailedFiles(suite: Suite, report: string, first: Outcome): Outcome {
  const cases = failingCases(report)
  const files = filesToRerun(cases, (f) => existsSync(join(ROOT, f)))
  if (!files) return first
  step(`bun test: ${suite.name}, its failing files once more (${files.join(', ')})`)
  const again = outPath(`${suite.name} rerun`, 'xml')
  rmSync(again, { force: true })
  const started = performance.now()
  const code = sh(bunTestCommand(again, files.map((f) => `./${f}`)), suite)
  return afterRerun(first, cases, outcomeOf(`${suite.name} rerun`, code, again, (performance.now() - started) / 1000))
}

/**
 * Two suites at once (the server tests on PGlite and on PostgreSQL: each spends much of its time
 * waiting on its database, servers and child processes, so together they take little more than the
 * longer one). The first one's output streams; the second's goes to test-results/<name>.log and is
 * printed once it ends, so neither interleaves.
 */
async function runBunTestsTogether(first: Suite, second: Suite) {
  const chosen = [first, second].filter((s) => !only || s.name.includes(only))
  if (chosen.length < 2) return chosen.forEach(runBunTest)
  const run = (suite: Suite, log?: string) => {
    const report = reportPath(suite.name)
    rmSync(report, { force: true })
    const env = childEnv(suite.env)
    const out = log ? Bun.file(log) : 'inherit'
    const started = performance.now()
    const proc = Bun.spawn(bunTestCommand(report, suite.args, suite.workers), { cwd: suite.cwd ?? ROOT, env, stdout: out, stderr: out })
    return proc.exited.then((code) => outcomeOf(suite.name, code, report, (performance.now() - started) / 1000))
  }
  step(`bun test: ${first.name} (with ${second.name} at the same time; its output follows)`)
  const log = outPath(second.name, 'log')
  // Bun.file as stdout does not truncate: an earlier, longer log's tail would follow this run's output
  rmSync(log, { force: true })
  const [a, b] = await Promise.all([run(first), run(second, log)])
  step(`bun test: ${second.name} (ran with ${first.name})`)
  process.stdout.write(readFileSync(log, 'utf8'))
  outcomes.push(a, b)
}

function hasTestFiles(dir: string): boolean {
  if (!existsSync(dir)) return false
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const full = join(dir, name)
    if (statSync(full).isDirectory()) {
      if (hasTestFiles(full)) return true
    } else if (/\.(test|spec)\.(ts|tsx|js|jsx)$/.test(name)) return true
  }
  return false
}

/** Output lines worth showing when a check fails: tsc's `error TS` lines, Biome's file:line headers and messages. */
function firstErrors(output: string, max = 5): string {
  const lines = output.split('\n').map((l) => l.trimEnd())
  const picked: string[] = []
  for (let i = 0; i < lines.length && picked.length < max; i++) {
    const line = lines[i]!
    if (/error TS\d+/.test(line)) picked.push(line.trim())
    else if (/^\S+:\d+:\d+ \S+/.test(line)) {
      const message = lines.slice(i + 1, i + 4).find((l) => /^\s*×/.test(l))
      if (message) picked.push(`${line.split(' ')[0]} ${message.trim().replace(/^× /, '')}`)
    }
  }
  return picked.length ? picked.join(' | ') : lines.filter(Boolean).slice(-3).join(' | ')
}

/** A type-check or lint command, counted as one test: passes when it exits 0. */
function runCheck(name: string, cmd: string[], opts: { cwd?: string } = {}) {
  if (only && !`check: ${name}`.includes(only)) return
  step(`check: ${name}`)
  const started = performance.now()
  const res = spawnSync(cmd[0]!, cmd.slice(1), { cwd: opts.cwd ?? ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`
  process.stdout.write(output)
  const code = res.error ? 127 : (res.status ?? 1)
  const ok = code === 0
  outcomes.push({ name: `check: ${name}`, passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0, seconds: (performance.now() - started) / 1000, note: ok ? undefined : `exited ${code}: ${firstErrors(output)}` })
}

function setupFailure(name: string, error: string) {
  console.error(`\n!!! ${name}: ${error}`)
  outcomes.push({ name, passed: 0, failed: 1, skipped: 0, seconds: 0, note: error })
}

// --- main --------------------------------------------------------------------

const started = performance.now()
mkdirSync(OUT, { recursive: true })
process.env.PATH = `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`

if (!skipSetup) {
  step('Debian packages')
  const aptError = installPackages()
  if (aptError) setupFailure('setup: apt', aptError)

  step('web build')
  const webError = buildWeb()
  if (webError) setupFailure('setup: web build', webError)
}

step('PostgreSQL')
const pg = startPostgres()
if (pg.error) setupFailure('setup: PostgreSQL', pg.error)

// Type-check both sides and lint (web/styled-system is Panda's generated code the web types import)
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name)
if (!existsSync(join(ROOT, 'web', 'styled-system', 'css'))) sh([process.execPath, 'x', '--bun', 'panda', 'codegen', '--silent'], { cwd: join(ROOT, 'web') })
runCheck('tsc server', [bin('tsc'), '--noEmit', '-p', '.'])
runCheck('tsc web', [bin('tsc'), '--noEmit', '-p', 'web'])
runCheck('lint (biome)', [bin('biome'), 'lint', '--max-diagnostics=50'])

// Every server-side test file (src/, scripts/, tests/ but the browser and deployment tests) on
// PGlite and, at the same time, src/ again on PostgreSQL; then the browser tests (on PGlite) alone,
// since they measure the page's timing; then the deployment tests. web/ has its own suite (its
// tests may need a DOM preload the server tests must not get).
const serverOnPglite: Suite = {
  name: 'server on PGlite',
  args: ['--path-ignore-patterns=web/**', '--path-ignore-patterns=tests/deploy/**', '--path-ignore-patterns=tests/e2e/**'],
  env: { TEST_DATABASE_URL: undefined },
  workers: SERVER_WORKERS,
}
if (pg.url) await runBunTestsTogether(serverOnPglite, { name: 'server on PostgreSQL', args: ['./src'], env: { TEST_DATABASE_URL: pg.url }, workers: SERVER_WORKERS })
else runBunTest(serverOnPglite)
runBunTest({ name: 'browser (e2e) on PGlite', args: ['./tests/e2e'], env: { TEST_DATABASE_URL: undefined }, rerunFailedFiles: true, workers: BROWSER_WORKERS })
// deployment (binary, Caddy, Dockerfile, backups): their app processes run on PGlite; the
// PostgreSQL parts (pg_dump backups, migrate-to-postgres) use TEST_DATABASE_URL when there is one
runBunTest({ name: 'deploy', args: ['./tests/deploy'], env: { TEST_DATABASE_URL: pg.url } })
if (hasTestFiles(join(ROOT, 'web', 'src'))) runBunTest({ name: 'web', args: [], cwd: join(ROOT, 'web'), env: { TEST_DATABASE_URL: undefined } })

step('summary')
for (const o of outcomes) {
  const skipped = o.skipped ? `, ${o.skipped} skipped` : ''
  console.log(`${o.failed ? 'FAIL' : 'ok  '} ${o.name}: ${o.passed} passed, ${o.failed} failed${skipped} (${o.seconds.toFixed(1)} s)${o.note ? `\n     ${o.note}` : ''}`)
}
const slow = slowestFiles(outcomes.map((o) => ({ suite: o.name, file: reportPath(o.name) })))
if (slow.length) {
  console.log('slowest files:')
  for (const f of slow) console.log(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.file} (${f.suite})`)
}
console.log(`reports: ${relative(ROOT, OUT)}/*.xml; total ${((performance.now() - started) / 1000).toFixed(0)} s`)
const passed = outcomes.reduce((n, o) => n + o.passed, 0)
const failed = outcomes.reduce((n, o) => n + o.failed, 0)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
