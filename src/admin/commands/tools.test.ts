import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../tests/support/server-process.ts'
import { startReleaseServer, zipappBuild, type ReleaseServer } from '../../../tests/support/ytdlp-release.ts'

// `scripts/admin.ts tools | tools update | tools rollback | cookies set FILE | cookies remove` as
// real processes on a PGlite DATA_DIR, against a yt-dlp release server on 127.0.0.1.
setDefaultTimeout(120_000)

const dir = mkdtempSync(join(tmpdir(), 'tunefeed-tools-cli-'))
const dataDir = join(dir, 'data')
let release: ReleaseServer

const admin = (...args: string[]) =>
  run([process.execPath, 'scripts/admin.ts', ...args], { DATA_DIR: dataDir, YTDLP_UPDATE: 'stable', YTDLP_RELEASE_URL: release.url, YTDLP_SIGNING_KEY: release.publicKey }, 110_000)

beforeAll(async () => {
  release = startReleaseServer()
  release.publish('yt-dlp', await zipappBuild('2025.10.22'))
})
afterAll(async () => {
  await release?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('scripts/admin.ts tools and cookies', () => {
  test('tools: the managed copy starts as the yt-dlp on PATH; update switches; rollback goes back', async () => {
    const shown = await admin('tools')
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/^yt-dlp {3}2023\.03\.04 .*\(managed; channel stable\)/m)
    expect(shown.stdout).toMatch(/^ffmpeg {3}\S+ {2}\/usr\/bin\/ffmpeg {2}\(path\)/m)
    expect(shown.stdout).toMatch(/^js {7}deno 2\.9\.6 {2}\S+ {2}\((path|package); supported\)/m)

    const updated = await admin('tools', 'update')
    expect(updated.code).toBe(0)
    expect(updated.stdout).toStartWith('Updated.\nyt-dlp   2025.10.22 ')
    expect(updated.stdout).toContain('previous build 2023.03.04')

    const rolled = await admin('tools', 'rollback')
    expect(rolled.code).toBe(0)
    expect(rolled.stdout).toStartWith('Rolled back to 2023.03.04.\nyt-dlp   2023.03.04 ')
    expect((await admin('tools', 'sideways')).code).toBe(2)
  })

  test('tools canary: runs it now; a failure exits 1 with the reason in words; tools shows the result', async () => {
    // the test servers' canary URL has nothing behind it (tests/support/server-process.ts)
    const canary = await admin('tools', 'canary')
    expect(canary.code).toBe(1)
    expect(canary.stdout).toMatch(/^The canary failed: Failed \(\w[\w ]*\) on yt-dlp 2023\.03\.04: .* yt-dlp said: ERROR: /)
    expect(canary.stderr).toEndWith('tools: YouTube downloads do not work (see above).\n')
    expect((await admin('tools')).stdout).toMatch(/^canary {3}failed \S+: Failed .*\(http:\/\/127\.0\.0\.1:9\/canary\)$/m)
  })

  test('cookies set FILE / cookies remove; a file that is not cookies is refused', async () => {
    const good = join(dir, 'cookies.txt')
    writeFileSync(good, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1893456000\tSID\tvalue\n')
    const bad = join(dir, 'notes.txt')
    writeFileSync(bad, 'hello\n')
    expect(await admin('cookies', 'set', good)).toMatchObject({ code: 0, stdout: 'Cookies set: 1 for youtube.com.\n' })
    expect(await admin('cookies', 'set', bad)).toMatchObject({ code: 1, stderr: 'cookies: Not a Netscape cookies file.\n' })
    expect(await admin('cookies', 'remove')).toMatchObject({ code: 0, stdout: 'Cookies removed.\n' })
    expect((await admin('cookies')).code).toBe(2)
  })
})
