import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnv } from '../../src/env.ts'
import { REPO_ROOT } from '../support/server-process.ts'

// docs/deploy.md must list every setting src/env.ts accepts, with the default the code has.

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')

describe('docs/deploy.md', () => {
  const doc = read('docs/deploy.md')
  const rows = new Map(
    [...doc.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]),
  )
  const variables = [...read('src/env.ts').matchAll(/^  ([A-Z_]+): /gm)].map((m) => m[1]!)

  test('documents every configuration variable of src/env.ts', () => {
    expect(variables.length).toBeGreaterThan(20)
    expect(variables.filter((v) => !rows.has(v))).toEqual([])
    expect([...rows.keys()].filter((v) => !variables.includes(v))).toEqual([])
  })

  test('with the defaults the code has', () => {
    const defaults = parseEnv({}) as Record<string, unknown>
    const wrong = variables.filter((v) => {
      const documented = rows.get(v)!
      const actual = defaults[v]
      if (actual === undefined) return !documented.startsWith('unset')
      if (v === 'JOB_CONCURRENCY') return documented !== 'number of CPUs'
      if (actual === '') return documented !== 'empty'
      return !documented.startsWith(`\`${String(actual)}\``)
    })
    expect(wrong.map((v) => `${v}: documented ${rows.get(v)}, code ${JSON.stringify((defaults as Record<string, unknown>)[v])}`)).toEqual([])
  })

  test('the settings template is valid', () => {
    const lines = read('deploy/tunefeed.env.example').split('\n').filter((l) => l && !l.startsWith('#'))
    const env = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
    expect(parseEnv(env)).toMatchObject({ TRUST_PROXY: true, HOST: '127.0.0.1', DATA_DIR: '/var/lib/tunefeed/data' })
  })
})
