import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from '../support/server-process.ts'

// The systemd units keep what the services write private: UMask=0077 on each,
// and the state directory 0700 (the app also sets its umask and DATA_DIR mode
// itself at start: src/lib/data-dir.ts).
const units = readdirSync(join(REPO_ROOT, 'deploy')).filter((f) => f.endsWith('.service'))

test.each(units)('%s: UMask=0077, state directory 0700', (name) => {
  const text = readFileSync(join(REPO_ROOT, 'deploy', name), 'utf8')
  const service = text.slice(text.indexOf('[Service]'), text.indexOf('\n[', text.indexOf('[Service]') + 1) >>> 0)
  expect(service).toMatch(/^UMask=0077$/m)
  if (/^StateDirectory=/m.test(service)) expect(service).toMatch(/^StateDirectoryMode=0700$/m)
})

test('there are units to check', () => {
  expect(units.length).toBeGreaterThanOrEqual(4)
})
