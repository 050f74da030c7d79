import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Cipher, loadSecret } from './secret.ts'

const dirs: string[] = []
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-secret-'))
  dirs.push(dir)
  return dir
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

test('APP_SECRET wins; otherwise one secret is generated once, owner-only', () => {
  const dir = fresh()
  expect(loadSecret('from-env', dir)).toBe('from-env')
  const made = loadSecret(undefined, dir)
  expect(made.length).toBeGreaterThan(40)
  expect(loadSecret(undefined, dir)).toBe(made)
  expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600)
  expect(readdirSync(dir)).toEqual(['secret'])
})

test('processes starting at once on one folder agree on one secret', async () => {
  for (let round = 0; round < 3; round++) {
    const dir = join(fresh(), 'data')
    const script = `import { loadSecret } from ${JSON.stringify(join(import.meta.dir, 'secret.ts'))}; console.log(loadSecret(undefined, ${JSON.stringify(dir)}))`
    const procs = Array.from({ length: 6 }, () => Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' }))
    const outs = await Promise.all(procs.map(async (p) => ((await p.exited) === 0 ? (await new Response(p.stdout).text()).trim() : `failed: ${await new Response(p.stderr).text()}`)))
    expect(new Set(outs).size).toBe(1)
    expect(outs[0]).toBe(readFileSync(join(dir, 'secret'), 'utf8'))
    expect(readdirSync(dir)).toEqual(['secret'])
  }
})

test('a credential sealed under another secret does not open', async () => {
  const sealed = await new Cipher('old-secret-old-secret-old-secret-1').encrypt('pw')
  expect(await new Cipher('old-secret-old-secret-old-secret-1').decrypt(sealed)).toBe('pw')
  await expect(new Cipher('new-secret-new-secret-new-secret-2').decrypt(sealed)).rejects.toThrow()
})
