import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sha256, startDenoRelease, zipOf, type DenoRelease } from '../../tests/support/deno-release.ts'
import { parseEnv } from '../env.ts'
import { DENO_SHA256, DENO_VERSION } from './deno-pin.ts'
import { startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { chooseJsRuntime, denoFromPackage, denoTarget, inSupportedRange, ManagedDeno, parseVerdict, ytdlpVerdict } from './js-runtime.ts'

// The runtime choice against a real Deno (the `deno` npm package's binary), PATH folders made here
// (a Deno below 2.3 and a Node 22 are two-line stand-ins: this machine has Node 20), a Deno
// release stand-in on 127.0.0.1 serving the real binary in a zip, and a stand-in yt-dlp whose
// `-v` header runs the runtime it is given, as yt-dlp does.
setDefaultTimeout(60_000)

const realDeno = denoFromPackage()!
const target = denoTarget()!
let work: string
let release: DenoRelease
let realZip: Uint8Array

/** A folder holding `files` (name → symlink target, or script text) for PATH. */
function pathDir(name: string, files: Record<string, { link: string } | { script: string }>): string {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  for (const [file, what] of Object.entries(files)) {
    if ('link' in what) symlinkSync(what.link, join(dir, file))
    else {
      writeFileSync(join(dir, file), `#!/bin/sh\n${what.script}\n`)
      chmodSync(join(dir, file), 0o755)
    }
  }
  return dir
}

beforeAll(async () => {
  expect(realDeno).toBeString()
  work = mkdtempSync(join(tmpdir(), 'tunefeed-js-runtime-'))
  release = await startDenoRelease(target)
  realZip = zipOf([{ name: 'deno', data: await Bun.file(realDeno).bytes() }], { deflate: true })
})
afterAll(async () => {
  await release?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('yt-dlp’s published ranges', () => {
  test('Deno ≥ 2.3, Node ≥ 22, QuickJS ≥ 2023-12-09, Bun 1.2.11-1.3.14; no version is unsupported', () => {
    const cases: [Parameters<typeof inSupportedRange>[0], string | null, boolean][] = [
      ['deno', '2.9.6', true],
      ['deno', '2.3.0', true],
      ['deno', '2.2.12', false],
      ['deno', '1.46.3', false],
      ['node', '22.0.0', true],
      ['node', '24.3.1', true],
      ['node', '20.20.2', false],
      ['quickjs', '2024-01-13', true],
      ['quickjs', '2023-12-09', true],
      ['quickjs', '2021-03-27', false],
      ['bun', '1.2.11', true],
      ['bun', '1.3.14', true],
      ['bun', '1.3.15', false],
      ['bun', '1.4.5', false],
      ['bun', '1.2.10', false],
      ['deno', null, false],
    ]
    for (const [name, version, ok] of cases) expect({ name, version, ok: inSupportedRange(name, version) }).toEqual({ name, version, ok })
  })
})

describe('yt-dlp’s verdict', () => {
  test('read from the `[debug] JS runtimes:` line as yt-dlp 2026.08.19 prints it', () => {
    // real header lines of yt-dlp 2026.08.19 with `-v --no-js-runtimes --js-runtimes <rt>` and no URL
    const header = (line: string) => `[debug] Encodings: locale UTF-8, fs utf-8\n[debug] JS runtimes: ${line}\n[debug] Proxy map: {}\n`
    expect(parseVerdict(header('deno-2.9.6'), 'deno')).toBe('supported')
    expect(parseVerdict(header('node-20.20.2 (unsupported)'), 'node')).toBe('unsupported')
    // it does not mark Bun above its ceiling: the range does (inSupportedRange)
    expect(parseVerdict(header('bun-1.4.5'), 'bun')).toBe('supported')
    // the runtime did not answer --version
    expect(parseVerdict(header('none'), 'deno')).toBe('unsupported')
    expect(parseVerdict(header('quickjs-ng-0.10.1'), 'quickjs')).toBe('supported')
    // yt-dlp before 2025.11 prints no such line
    expect(parseVerdict('[debug] yt-dlp version 2023.03.04\n[debug] Python 3.11.2\n', 'deno')).toBe('unknown')
  })

  test('asked of a stand-in yt-dlp that runs the runtime; an old yt-dlp is not asked', async () => {
    const fine = startFakeYtdlp({ version: '2025.12.08' })
    const refusing = startFakeYtdlp({ version: '2026.08.19', unsupported: ['deno'] })
    const old = startFakeYtdlp({ version: '2023.03.04' })
    try {
      const deno = { name: 'deno' as const, path: realDeno }
      expect(await ytdlpVerdict({ path: fine.path, version: '2025.12.08' }, deno)).toBe('supported')
      expect(fine.calls()).toEqual([['-v', '--ignore-config', '--no-js-runtimes', '--js-runtimes', `deno:${realDeno}`]])
      expect(await ytdlpVerdict({ path: refusing.path, version: '2026.08.19' }, deno)).toBe('unsupported')
      expect(await ytdlpVerdict({ path: fine.path, version: '2025.12.08' }, { name: 'deno', path: join(work, 'no-such-deno') })).toBe('unsupported')
      expect(await ytdlpVerdict({ path: old.path, version: '2023.03.04' }, deno)).toBe('unknown')
      expect(old.calls()).toEqual([])
      expect(await ytdlpVerdict(null, deno)).toBe('unknown')
    } finally {
      for (const f of [fine, refusing, old]) f.stop()
    }
  })
})

describe('YTDLP_JS_RUNTIME=auto', () => {
  test('a supported Deno on PATH comes first', async () => {
    const path = pathDir('deno-on-path', { deno: { link: realDeno } })
    const found = await chooseJsRuntime({ setting: 'auto', searchPath: `${path}:/usr/bin:/bin`, managed: null })
    expect(found).toEqual({ name: 'deno', path: join(path, 'deno'), version: '2.9.6', source: 'path', inRange: true })
  })

  test('a Deno below 2.3 on PATH is passed over for the npm package’s own binary (not its node wrapper)', async () => {
    const path = pathDir('old-deno', { deno: { script: 'echo "deno 2.1.4 (stable, release, x86_64-unknown-linux-gnu)"' } })
    const found = await chooseJsRuntime({ setting: 'auto', searchPath: `${path}:/usr/bin:/bin`, managed: null })
    expect(found).toMatchObject({ name: 'deno', version: '2.9.6', source: 'package', inRange: true })
    expect(found!.path).toEndWith(`/@deno/linux-x64-glibc/deno`)
    // the ELF binary itself: yt-dlp runs it without node
    expect(new TextDecoder().decode((await Bun.file(found!.path).bytes()).slice(1, 4))).toBe('ELF')
  })

  test('no Deno anywhere: a Node 22 on PATH; with only this machine’s Node 20, it is reported unsupported; with nothing, none', async () => {
    const node22 = pathDir('node22', { node: { script: 'echo v22.12.0' } })
    const none = { setting: 'auto', managed: null, packageFrom: null } as const
    expect(await chooseJsRuntime({ ...none, searchPath: `${node22}:/usr/bin:/bin` })).toEqual({
      name: 'node',
      path: join(node22, 'node'),
      version: '22.12.0',
      source: 'path',
      inRange: true,
    })
    const node20 = await chooseJsRuntime({ ...none, searchPath: '/usr/bin:/bin' })
    expect(node20).toMatchObject({ name: 'node', path: '/usr/bin/node', source: 'path', inRange: false })
    expect(node20!.version).toStartWith('20.')
    expect(await chooseJsRuntime({ ...none, searchPath: join(work, 'empty') })).toBeNull()
    // a package folder without the deno package
    expect(denoFromPackage(join(work, 'x.ts'))).toBeNull()
  })
})

describe('YTDLP_JS_RUNTIME=<name>:<path>', () => {
  test('used as given and reported supported or not (Bun above 1.3.14 is not)', async () => {
    expect(await chooseJsRuntime({ setting: `deno:${realDeno}`, searchPath: '', managed: null })).toEqual({
      name: 'deno',
      path: realDeno,
      version: '2.9.6',
      source: 'setting',
      inRange: true,
    })
    const bun = await chooseJsRuntime({ setting: `bun:${process.execPath}`, searchPath: '', managed: null })
    expect(bun).toMatchObject({ name: 'bun', path: process.execPath, version: Bun.version, source: 'setting' })
    // the app's own Bun (1.4.x) is above yt-dlp's ceiling
    expect(bun!.inRange).toBe(inSupportedRange('bun', Bun.version))
    expect(inSupportedRange('bun', '1.4.5')).toBe(false)
    // a bare name is looked up on PATH for its version, and handed to yt-dlp as written
    expect(await chooseJsRuntime({ setting: 'node:node', searchPath: '/usr/bin', managed: null })).toMatchObject({ name: 'node', path: 'node', source: 'setting', inRange: false })
    expect(await chooseJsRuntime({ setting: `deno:${join(work, 'missing')}`, searchPath: '', managed: null })).toMatchObject({ version: null, inRange: false })
  })
})

describe('the managed Deno', () => {
  test('fetched from DENO_RELEASE_URL, checksum checked, unpacked private (0700), then reused without a download', async () => {
    release.publish(realZip)
    const dataDir = join(work, 'data-good')
    const managed = new ManagedDeno(dataDir, release.url, sha256(realZip))
    const found = await chooseJsRuntime({ setting: 'auto', searchPath: '/usr/bin:/bin', managed, packageFrom: null })
    expect(found).toMatchObject({ name: 'deno', version: '2.9.6', source: 'managed', inRange: true })
    expect(found!.path).toStartWith(join(dataDir, 'tools', 'deno', 'builds'))
    expect(release.hits).toEqual([`/deno-${target}.zip.sha256sum`, `/deno-${target}.zip`])
    for (const p of [join(dataDir, 'tools', 'deno'), join(dataDir, 'tools', 'deno', 'builds'), join(found!.path, '..'), found!.path]) {
      expect({ p, mode: statSync(p).mode & 0o777 }).toEqual({ p, mode: 0o700 })
    }
    // the next start finds it on disk
    const again = await chooseJsRuntime({ setting: 'auto', searchPath: '/usr/bin:/bin', managed: new ManagedDeno(dataDir, release.url, sha256(realZip)), packageFrom: null })
    expect(again).toEqual(found)
    expect(release.hits).toHaveLength(2)
    // the same build on disk is not run once the pin names another (and nothing is fetched for it)
    const repinned = new ManagedDeno(dataDir, `${release.url}/none`, 'b'.repeat(64))
    expect(await repinned.installed()).toBeNull()
  })

  test('a release whose .sha256sum matches its zip but not the pinned hash is refused; the choice falls back to Node', async () => {
    // the stand-in publishes the zip with its own correct checksum file: only the pin differs
    release.publish(realZip)
    const dataDir = join(work, 'data-unpinned')
    const managed = new ManagedDeno(dataDir, release.url)
    expect(managed.sha256).toBe(DENO_SHA256[target]!)
    await expect(managed.fetch()).rejects.toThrow(/is not the pinned build: its SHA-256 is [0-9a-f]{64}, the pinned one \(DENO_SHA256\) [0-9a-f]{64}; it is not run/)
    expect(managed.lastError).toContain(sha256(realZip))
    expect(existsSync(join(dataDir, 'tools', 'deno', 'builds'))).toBe(false)
    const found = await chooseJsRuntime({ setting: 'auto', searchPath: '/usr/bin:/bin', managed, packageFrom: null })
    expect(found).toMatchObject({ name: 'node', path: '/usr/bin/node', source: 'path' })
    // DENO_SHA256 set to another hash: refused the same way
    const other = new ManagedDeno(join(work, 'data-other-pin'), release.url, 'c'.repeat(64))
    await expect(other.fetch()).rejects.toThrow(/not the pinned build/)
  })

  test('the pinned version is the default release URL, with a hash for every target', () => {
    expect(parseEnv({}).DENO_RELEASE_URL).toBe(`https://github.com/denoland/deno/releases/download/v${DENO_VERSION}`)
    expect(parseEnv({ DENO_SHA256: 'AB'.repeat(32) }).DENO_SHA256).toBe('ab'.repeat(32))
    expect(() => parseEnv({ DENO_SHA256: 'nothex' })).toThrow(/DENO_SHA256/)
    for (const t of ['x86_64-unknown-linux-gnu', 'aarch64-unknown-linux-gnu', 'x86_64-apple-darwin', 'aarch64-apple-darwin']) expect(DENO_SHA256[t]).toMatch(/^[0-9a-f]{64}$/)
  })

  test('a checksum mismatch installs nothing and says why; the choice goes on to Node', async () => {
    release.publish(realZip, { sum: 'a'.repeat(64) })
    const dataDir = join(work, 'data-mismatch')
    const managed = new ManagedDeno(dataDir, release.url, sha256(realZip))
    await expect(managed.fetch()).rejects.toThrow(/checksum mismatch for deno-.*\.zip: its \.sha256sum says a{64}/)
    expect(managed.lastError).toMatch(/checksum mismatch/)
    expect(existsSync(join(dataDir, 'tools', 'deno', 'builds'))).toBe(false)
    const found = await chooseJsRuntime({ setting: 'auto', searchPath: '/usr/bin:/bin', managed, packageFrom: null })
    expect(found).toMatchObject({ name: 'node', inRange: false })
  })

  test('a zip without a runnable deno is refused', async () => {
    const broken = zipOf([{ name: 'deno', data: new TextEncoder().encode('not a program') }])
    release.publish(broken)
    await expect(new ManagedDeno(join(work, 'data-broken'), release.url, sha256(broken)).fetch()).rejects.toThrow(/does not run here/)
    const empty = zipOf([{ name: 'README.md', data: new Uint8Array([1]) }])
    release.publish(empty)
    await expect(new ManagedDeno(join(work, 'data-broken'), release.url, sha256(empty)).fetch()).rejects.toThrow(/holds no deno/)
    expect(existsSync(join(work, 'data-broken', 'tools', 'deno', 'state.json'))).toBe(true)
    expect(JSON.parse(readFileSync(join(work, 'data-broken', 'tools', 'deno', 'state.json'), 'utf8')).current).toBeNull()
  })

  test('plain HTTP to an address other than loopback is refused before anything is sent', async () => {
    // decision level: fetchRelease refuses the URL itself; no request leaves this machine
    const managed = new ManagedDeno(join(work, 'data-http'), 'http://198.51.100.7/deno')
    await expect(managed.fetch()).rejects.toThrow(/is not HTTPS/)
    expect(managed.lastError).toMatch(/release downloads must use HTTPS/)
  })
})
