import { existsSync, readFileSync } from 'node:fs'

// What scripts/test.ts reads from bun's JUnit reports: the counts, the failing tests with why,
// and what a rerun of the browser suite's failing files means (docs/decisions/213-browser-rerun.md).

/** One suite's result as the summary prints it. */
export interface Outcome {
  name: string
  passed: number
  failed: number
  skipped: number
  seconds: number
  note?: string
}

export interface JunitCounts {
  tests: number
  failures: number
  errors: number
  skipped: number
}

export function readJunit(file: string): JunitCounts | null {
  if (!existsSync(file)) return null
  const xml = readFileSync(file, 'utf8')
  const root = /<testsuites\b([^>]*)>/.exec(xml)?.[1]
  if (root === undefined) return null
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root)?.[1] ?? 0)
  return { tests: attr('tests'), failures: attr('failures'), errors: attr('errors'), skipped: attr('skipped') }
}

const unescapeXml = (s: string) =>
  s
    .replace(/&#10;/g, '\n')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

/**
 * The failing test cases in a JUnit report, for the summary: each one's file, name and the
 * first lines of its failure with the test file's own stack line. CI keeps only the tail of
 * the output, so the summary must say why, not only what.
 */
export function failingCases(file: string): { name: string; why: string }[] {
  if (!existsSync(file)) return []
  const xml = readFileSync(file, 'utf8')
  const cases: { name: string; why: string }[] = []
  for (const m of xml.matchAll(/<testcase name="([^"]*)"([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    // <failure type message>text</failure>, or self-closed with only its message (a timeout)
    const failure = m[3] && /<(?:failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:failure|error)>)/.exec(m[3])
    if (!failure) continue
    const testFile = /\bfile="([^"]*)"/.exec(m[2]!)?.[1] ?? ''
    const text = failure[2] ?? /\bmessage="([^"]*)"/.exec(failure[1]!)?.[1] ?? 'failed'
    const lines = unescapeXml(text).split('\n').map((l) => l.trim()).filter(Boolean)
    const message = lines.filter((l) => !l.startsWith('at ')).slice(0, 4)
    const where = lines.find((l) => l.startsWith('at ') && testFile && l.includes(testFile.split('/').pop()!))
    const why = [...message, ...(where ? [where] : [])].map((l) => (l.length > 240 ? `${l.slice(0, 240)}…` : l)).join(' / ')
    cases.push({ name: `${testFile ? `${testFile}: ` : ''}${unescapeXml(m[1]!)}`, why })
  }
  return cases
}

/** The files of the failing cases to run once more, or null when there is none or more than `most` (then it is not a flake). */
export function filesToRerun(cases: { name: string }[], exists: (file: string) => boolean, most = 3): string[] | null {
  const files = [...new Set(cases.map((c) => c.name.split(': ')[0]!).filter((f) => f.endsWith('.ts') && exists(f)))]
  return files.length === 0 || files.length > most ? null : files
}

/**
 * The suite's outcome after its failing files ran once more (`second`): passed, and named
 * FLAKY with the first failures and why, when every test of the rerun passed; else failed,
 * with both runs' failures.
 */
export function afterRerun(first: Outcome, firstCases: { name: string; why: string }[], second: Outcome): Outcome {
  const firstFailures = `failed on the first run:\n     ${firstCases.map((c) => `- ${c.name}\n       ${c.why}`).join('\n     ')}`
  if (second.failed === 0 && second.passed > 0) {
    return {
      ...first,
      passed: first.passed + first.failed,
      failed: 0,
      seconds: first.seconds + second.seconds,
      note: `FLAKY: passed when their files ran again (${second.passed} passed); ${firstFailures}`,
    }
  }
  return { ...first, seconds: first.seconds + second.seconds, note: `${first.note ?? ''}\n     and again on the second run: ${second.note ?? `${second.failed} failed`}` }
}

/** A suite's outcome from its exit code and JUnit report. */
export function outcomeOf(name: string, code: number, report: string, seconds: number): Outcome {
  const counts = readJunit(report)
  const outcome: Outcome = { name, passed: 0, failed: 0, skipped: 0, seconds }
  if (!counts) {
    outcome.failed = 1
    outcome.note = `no JUnit report (bun test exited ${code})`
    return outcome
  }
  const failed = counts.failures + counts.errors
  outcome.passed = counts.tests - failed - counts.skipped
  outcome.failed = failed
  outcome.skipped = counts.skipped
  if (code !== 0 && failed === 0) {
    outcome.failed = 1
    outcome.note = `bun test exited ${code} with no failing test in its report (a file failed to load or the run crashed: see the output above)`
  }
  if (counts.tests === 0) {
    outcome.failed = Math.max(outcome.failed, 1)
    outcome.note = 'ran no test'
  }
  const failing = failingCases(report)
  if (failing.length) {
    const shown = failing.slice(0, 10).map((f) => `- ${f.name}\n       ${f.why}`)
    outcome.note = `failing:\n     ${shown.join('\n     ')}${failing.length > 10 ? `\n     ... and ${failing.length - 10} more` : ''}`
  }
  return outcome
}

/**
 * The slowest test files over the given reports (a file run in two suites counts once per
 * suite), slowest first: the summary names them, so that the suite's time stays in sight.
 */
export function slowestFiles(reports: { suite: string; file: string }[], most = 10): { suite: string; file: string; seconds: number }[] {
  const files: { suite: string; file: string; seconds: number }[] = []
  for (const r of reports) {
    if (!existsSync(r.file)) continue
    const xml = readFileSync(r.file, 'utf8')
    for (const m of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
      const name = /\bname="([^"]*)"/.exec(m[1]!)?.[1]
      const time = Number(/\btime="([\d.]+)"/.exec(m[1]!)?.[1] ?? Number.NaN)
      if (name && Number.isFinite(time)) files.push({ suite: r.suite, file: unescapeXml(name), seconds: time })
    }
  }
  return files.sort((a, b) => b.seconds - a.seconds).slice(0, most)
}
