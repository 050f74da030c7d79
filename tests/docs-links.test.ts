import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

// Every reference in the repository resolves inside it: code comments and docs cite
// docs/product.md, docs/api.md (with anchors that exist) or other files that exist,
// never documents kept outside the repository.

const ROOT = join(import.meta.dir, '..')
const SELF = 'tests/docs-links.test.ts'

const list = (pattern: string, cwd: string) =>
  [...new Bun.Glob(pattern).scanSync({ cwd })].map((p) => relative(ROOT, join(cwd, p))).filter((p) => !p.includes('node_modules'))

const codeFiles = [
  ...list('src/**/*.{ts,tsx}', ROOT),
  ...list('web/src/**/*.{ts,tsx}', ROOT),
  ...list('scripts/**/*.ts', ROOT),
  ...list('tests/**/*.{ts,tsx}', ROOT),
].filter((p) => p !== SELF && !p.endsWith('.gen.ts'))
const docFiles = ['README.md', ...list('docs/**/*.md', ROOT), ...list('web/*.md', ROOT)]

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!m) continue
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n ? `${base}-${n}` : base)
  }
  return anchors
}

/** The comment text of a TypeScript file (line and block comments; strings are not parsed, which is enough here). */
export function commentsOf(source: string): string[] {
  return [...source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:"'`\w])\/\/[^\n]*/g)].map((m) => m[0])
}

/** A target `path#anchor` (path relative to the repository root) that is missing, or null. */
function broken(target: string): string | null {
  const [path, anchor] = target.split('#') as [string, string | undefined]
  if (path && !existsSync(join(ROOT, path))) return `${target}: no such file`
  if (anchor && path.endsWith('.md') && !anchorsOf(read(path)).has(anchor)) return `${target}: no such heading`
  return null
}

// a repository path: a top-level folder, then a file with an extension, optionally #anchor
const REPO_PATH = /\b((?:docs|src|web|scripts|tests|deploy|drizzle)\/[\w./$-]*\.(?:md|ts|tsx|sql|json)(?:#[\w-]+)?)/g
// documents that live outside the repository
const OUTSIDE = /\.\.\/shared|\bSPEC\.md\b|\bAPI\.md\b|\bSPEC\s+\d|\bSPEC\b/

describe('references resolve inside the repository', () => {
  test('the checker reads anchors and comments as GitHub and TypeScript do', () => {
    expect([...anchorsOf('# API\n## Music jobs socket\n## Music\n```\n# not a heading\n```\n## Music\n')]).toEqual([
      'api',
      'music-jobs-socket',
      'music',
      'music-1',
    ])
    expect(commentsOf("const u = 'http://x' // see docs/api.md#music\n/** a\n * b */")).toEqual(['// see docs/api.md#music', '/** a\n * b */'])
  })

  test('code comments cite files and headings that exist, never outside documents', () => {
    expect(codeFiles.length).toBeGreaterThan(100)
    const problems: string[] = []
    for (const file of codeFiles) {
      for (const comment of commentsOf(read(file))) {
        if (OUTSIDE.test(comment)) problems.push(`${file}: cites a document outside the repository: ${comment.slice(0, 80)}`)
        for (const [, target] of comment.matchAll(REPO_PATH)) {
          // a glob or a placeholder names no single file
          if (/[*$<]/.test(target!)) continue
          const why = broken(target!)
          if (why) problems.push(`${file}: ${why}`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  test('docs link to files and headings that exist, never outside documents', () => {
    const problems: string[] = []
    for (const file of docFiles) {
      const text = read(file)
      if (OUTSIDE.test(text.replace(/```[\s\S]*?```/g, ''))) problems.push(`${file}: cites a document outside the repository`)
      for (const [, raw] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(raw!)) continue // http:, mailto:
        const [path, anchor] = raw!.split('#') as [string, string | undefined]
        const target = path ? relative(ROOT, join(ROOT, dirname(file), path)) : file
        if (target.startsWith('..')) {
          problems.push(`${file}: ${raw} leaves the repository`)
          continue
        }
        const why = broken(anchor ? `${target}#${anchor}` : target)
        if (why) problems.push(`${file}: ${why}`)
      }
      // `docs/api.md#music`-style mentions in prose
      for (const [, target] of text.matchAll(/`?\b(docs\/[\w./-]+\.md#[\w-]+)/g)) {
        const why = broken(target!)
        if (why) problems.push(`${file}: ${why}`)
      }
    }
    expect(problems).toEqual([])
  })

  test('every decision record has a Date and a Status line', () => {
    const records = list('docs/decisions/*.md', ROOT)
    expect(records.length).toBeGreaterThan(10)
    const numbers = records.map((r) => /\/(\d{3})-/.exec(r)?.[1])
    expect(new Set(numbers).size).toBe(records.length)
    const missing = records.filter((r) => {
      const text = read(r)
      return !/^Date: \d{4}-\d{2}-\d{2}$/m.test(text) || !/^Status: (accepted|superseded by \d{3})\b/m.test(text)
    })
    expect(missing).toEqual([])
  })

  test('docs/api.md names every route the server declares', () => {
    const doc = read('docs/api.md')
    const missing: string[] = []
    for (const file of list('src/*/routes.ts', ROOT)) {
      const prefix = `/api/${file.split('/')[1]}`
      for (const [, method, path] of read(file).matchAll(/^\s*\.(get|post|put|delete|patch)\(\s*'([^']*)'/gm)) {
        const m = method!.toUpperCase()
        const p = path!.replace(/:(\w+)/g, '{$1}')
        if (!doc.includes(`${m} ${p}`) && !doc.includes(`${m} ${prefix}${p}`)) missing.push(`${m} ${prefix}${p}`)
      }
    }
    expect(missing).toEqual([])
  })
})
