import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findFfmpeg } from './ffmpeg.ts'

// The order FFMPEG_PATH → PATH → ffmpeg-static → @ffmpeg-installer/ffmpeg, on real folders: a PATH
// holding Debian's ffmpeg or nothing, and a node_modules where ffmpeg-static is installed without
// its binary (its install step downloads it, which fails here) beside the real @ffmpeg-installer.
let dir: string
let withFfmpeg: string
let empty: string
let modules: string
const installer = join(import.meta.dir, '../../node_modules/@ffmpeg-installer')

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-ffmpeg-find-'))
  withFfmpeg = join(dir, 'bin')
  empty = join(dir, 'empty')
  mkdirSync(withFfmpeg)
  mkdirSync(empty)
  symlinkSync('/usr/bin/ffmpeg', join(withFfmpeg, 'ffmpeg'))
  modules = join(dir, 'app')
  const staticPkg = join(modules, 'node_modules', 'ffmpeg-static')
  mkdirSync(staticPkg, { recursive: true })
  // what ffmpeg-static's index.js exports when its install step did not download the binary
  writeFileSync(join(staticPkg, 'package.json'), JSON.stringify({ name: 'ffmpeg-static', main: 'index.js' }))
  writeFileSync(join(staticPkg, 'index.js'), `module.exports = ${JSON.stringify(join(staticPkg, 'ffmpeg'))}\n`)
  symlinkSync(installer, join(modules, 'node_modules', '@ffmpeg-installer'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('which ffmpeg runs', () => {
  test('FFMPEG_PATH first, as is', async () => {
    const found = await findFfmpeg({ configured: '/usr/bin/ffmpeg', searchPath: empty, packagesFrom: join(modules, 'x.js') })
    expect(found).toMatchObject({ path: '/usr/bin/ffmpeg', source: 'config' })
    expect(found!.version).toMatch(/^\d+\.\d+/)
  })

  test('then ffmpeg on PATH', async () => {
    const found = await findFfmpeg({ searchPath: `${empty}:${withFfmpeg}`, packagesFrom: join(modules, 'x.js') })
    expect(found).toMatchObject({ path: join(withFfmpeg, 'ffmpeg'), source: 'path' })
  })

  test('ffmpeg-static without its binary counts as absent: the binary inside @ffmpeg-installer is used', async () => {
    const found = await findFfmpeg({ searchPath: empty, packagesFrom: join(modules, 'x.js') })
    expect(found!.source).toBe('@ffmpeg-installer/ffmpeg')
    expect(found!.path).toContain('@ffmpeg-installer/linux-x64/ffmpeg')
    expect(found!.version).toBeTruthy()
  })

  test('ffmpeg-static with its binary comes before @ffmpeg-installer', async () => {
    const bin = join(modules, 'node_modules', 'ffmpeg-static', 'ffmpeg')
    symlinkSync('/usr/bin/ffmpeg', bin)
    try {
      const found = await findFfmpeg({ searchPath: empty, packagesFrom: join(modules, 'x.js') })
      expect(found).toMatchObject({ path: bin, source: 'ffmpeg-static' })
    } finally {
      rmSync(bin)
    }
  })

  test('nothing anywhere: null', async () => {
    const bare = join(dir, 'bare')
    mkdirSync(bare, { recursive: true })
    expect(await findFfmpeg({ searchPath: empty, packagesFrom: join(bare, 'x.js') })).toBeNull()
  })

  test('a configured path that is not there is kept (jobs then fail with tool_missing), with no version', async () => {
    const found = await findFfmpeg({ configured: join(dir, 'nope'), searchPath: withFfmpeg })
    expect(found).toMatchObject({ source: 'config', version: null })
  })
})
