import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterRerun, failingCases, filesToRerun, outcomeOf, slowestFiles } from './junit.ts'

// scripts/test.ts's reading of bun's JUnit reports, on reports that real `bun test` runs write
// (fixture test files in a temp folder): the counts, each failure's file and why, and what a
// rerun of the failing files means (docs/decisions/213-browser-rerun.md).

let dir: string
/** Runs `bun test` on the folder's files, as scripts/test.ts does; the report's path and the exit code. */
async function bunTest(files: string[], report: string) {
  const proc = Bun.spawn([process.execPath, 'test', '--reporter=junit', `--reporter-outfile=${report}`, ...files.map((f) => `./${f}`)], {
    cwd: dir,
    stdout: 'ignore',
    stderr: 'ignore',
    env: { ...process.env, TUNEFEED_FLAKE_MARKER: join(dir, 'flaked') },
  })
  return { report, code: await proc.exited }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-junit-'))
  writeFileSync(
    join(dir, 'steady.test.ts'),
    `import { expect, test } from 'bun:test'
test('adds up', () => expect(1 + 1).toBe(2))
test('compares <tags> & "quotes"', async () => {
  await Promise.resolve()
  expect('a<b>&"c"').toBe('a<b>&"d"')
})
`,
  )
  // fails on its first run only: the marker file says it ran before
  writeFileSync(
    join(dir, 'flaky.test.ts'),
    `import { expect, test } from 'bun:test'
import { existsSync, writeFileSync } from 'node:fs'
test('waits for the page', () => {
  const marker = process.env.TUNEFEED_FLAKE_MARKER!
  const first = !existsSync(marker)
  writeFileSync(marker, 'x')
  if (first) throw new Error('timed out waiting for the heading\\nsecond line')
})
`,
  )
  writeFileSync(
    join(dir, 'slow.test.ts'),
    `import { test } from 'bun:test'
test('waits too long', async () => {
  await Bun.sleep(2000)
}, 100)
`,
  )
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('JUnit reports of real bun test runs', () => {
  test('counts, and each failure with its file, message (unescaped) and the test file stack line', async () => {
    const { report, code } = await bunTest(['steady.test.ts'], join(dir, 'steady.xml'))
    expect(code).not.toBe(0)
    const outcome = outcomeOf('unit', code, report, 1)
    expect(outcome).toMatchObject({ name: 'unit', passed: 1, failed: 1, skipped: 0 })
    const cases = failingCases(report)
    expect(cases).toHaveLength(1)
    expect(cases[0]!.name).toBe('steady.test.ts: compares <tags> & "quotes"')
    expect(cases[0]!.why).toContain('expect(received).toBe(expected)')
    expect(cases[0]!.why).toContain('a<b>&"d"')
    expect(cases[0]!.why).toMatch(/at .*steady\.test\.ts:5:\d+$/)
    expect(outcome.note).toContain('- steady.test.ts: compares <tags> & "quotes"')
  })

  test('a test that timed out (a failure with only its message) is named with why', async () => {
    const { report, code } = await bunTest(['slow.test.ts'], join(dir, 'slow.xml'))
    expect(code).not.toBe(0)
    expect(outcomeOf('slow', code, report, 1)).toMatchObject({ passed: 0, failed: 1 })
    expect(failingCases(report)).toEqual([{ name: 'slow.test.ts: waits too long', why: 'test timed out' }])
  })

  test('the slowest files over several reports, slowest first, a missing report skipped', async () => {
    const slow = await bunTest(['slow.test.ts'], join(dir, 'slow-2.xml'))
    const steady = await bunTest(['steady.test.ts'], join(dir, 'steady-2.xml'))
    const files = slowestFiles([
      { suite: 'one', file: slow.report },
      { suite: 'two', file: steady.report },
      { suite: 'gone', file: join(dir, 'none.xml') },
    ])
    expect(files.map((f) => [f.suite, f.file])).toEqual([
      ['one', 'slow.test.ts'],
      ['two', 'steady.test.ts'],
    ])
    expect(files[0]!.seconds).toBeGreaterThan(files[1]!.seconds)
    expect(slowestFiles([{ suite: 'one', file: slow.report }], 0)).toEqual([])
  })

  test('no report, or a crash with no failing test in it, counts as a failure', async () => {
    expect(outcomeOf('gone', 1, join(dir, 'missing.xml'), 1)).toMatchObject({ passed: 0, failed: 1, note: 'no JUnit report (bun test exited 1)' })
    // a report in which every test passed, from a run that exited non-zero (a file that did not load)
    writeFileSync(join(dir, 'flaked'), 'x')
    const { report, code } = await bunTest(['flaky.test.ts'], join(dir, 'crash.xml'))
    expect(code).toBe(0)
    const crashed = outcomeOf('crash', 1, report, 1)
    expect(crashed).toMatchObject({ passed: 1, failed: 1 })
    expect(crashed.note).toStartWith('bun test exited 1 with no failing test in its report')
  })

  test('a file that fails, then passes on its own, is reported FLAKY with the first failure and why; the suite passes', async () => {
    rmSync(join(dir, 'flaked'), { force: true })
    const firstRun = await bunTest(['flaky.test.ts'], join(dir, 'first.xml'))
    const first = outcomeOf('browser', firstRun.code, firstRun.report, 10)
    expect(first).toMatchObject({ passed: 0, failed: 1 })
    const cases = failingCases(firstRun.report)
    const files = filesToRerun(cases, () => true)
    expect(files).toEqual(['flaky.test.ts'])
    const againRun = await bunTest(files!, join(dir, 'again.xml'))
    const outcome = afterRerun(first, cases, outcomeOf('browser rerun', againRun.code, againRun.report, 2))
    expect(outcome).toMatchObject({ name: 'browser', passed: 1, failed: 0, seconds: 12 })
    expect(outcome.note).toStartWith('FLAKY: passed when their files ran again (1 passed); failed on the first run:')
    expect(outcome.note).toContain('- flaky.test.ts: waits for the page')
    expect(outcome.note).toContain('timed out waiting for the heading / second line')
  })

  test('a file that fails again keeps the suite failed, with both runs said', async () => {
    const firstRun = await bunTest(['steady.test.ts'], join(dir, 'steady-1.xml'))
    const first = outcomeOf('browser', firstRun.code, firstRun.report, 10)
    const cases = failingCases(firstRun.report)
    const againRun = await bunTest(filesToRerun(cases, () => true)!, join(dir, 'steady-2.xml'))
    const outcome = afterRerun(first, cases, outcomeOf('browser rerun', againRun.code, againRun.report, 2))
    expect(outcome).toMatchObject({ passed: 1, failed: 1 })
    expect(outcome.note).toContain('and again on the second run: failing:')
  })

  test('nothing is rerun when no failing file exists or more than three files failed (not a flake)', () => {
    const named = (files: string[]) => files.map((f) => ({ name: `${f}: a test` }))
    expect(filesToRerun(named(['a.test.ts']), () => false)).toBeNull()
    expect(filesToRerun(named(['a.test.ts', 'b.test.ts', 'c.test.ts', 'd.test.ts']), () => true)).toBeNull()
    expect(filesToRerun(named(['a.test.ts', 'a.test.ts', 'b.test.ts']), () => true)).toEqual(['a.test.ts', 'b.test.ts'])
    expect(filesToRerun([{ name: 'no file here' }], () => true)).toBeNull()
  })
})
