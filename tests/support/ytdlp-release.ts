import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as openpgp from 'openpgp'

/**
 * A yt-dlp release server on 127.0.0.1 (the `<url>/<asset>`,
 * `<url>/SHA2-256SUMS` and `<url>/SHA2-256SUMS.sig` layout of yt-dlp's
 * releases), serving builds made at test time from Debian's yt-dlp:
 * - `zipappBuild(version)`: Debian's yt_dlp package as a zipapp (the `yt-dlp`
 *   asset's format) with `version` written into yt_dlp/version.py;
 * - `scriptBuild(version, body)`: a small sh script (an outdated build that
 *   fails on marked URLs, or a broken one).
 * The sums are signed (detached, binary, as yt-dlp does) with a key made at
 * test time: apps under test get `release.publicKey` as YTDLP_SIGNING_KEY.
 */
export interface ReleaseServer {
  url: string
  hits: string[]
  /** The armored public key the sums are signed with (YTDLP_SIGNING_KEY). */
  publicKey: string
  /** `good`: signed with publicKey's key; `other`: signed by another key; `none`: no .sig (404); `stale`: signed before the last publish. */
  signing: 'good' | 'other' | 'none' | 'stale'
  /** Publishes `bytes` as `asset`; `sum` overrides the checksum line (a mismatch). */
  publish(asset: string, bytes: Uint8Array, opts?: { sum?: string }): void
  /** Serves other bytes for `asset` than the ones the signed sums list (a substituted build). */
  tamper(asset: string, bytes: Uint8Array): void
  /** Answers `name` with a 302 to `location` (null: no more). */
  redirect(name: string, location: string | null): void
  stop(): Promise<void>
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')

async function testKey(name: string) {
  const { privateKey, publicKey } = await openpgp.generateKey({ type: 'ecc', userIDs: [{ name, email: 'release@tunefeed.test' }], format: 'object' })
  return { privateKey, armored: publicKey.armor() }
}

/** The release key of the stand-in, and another one (a valid signature by the wrong signer). */
const [releaseKey, otherKey] = await Promise.all([testKey('Tunefeed test release key'), testKey('Someone else')])

export async function signDetached(data: Uint8Array, key: openpgp.PrivateKey = releaseKey.privateKey): Promise<Uint8Array> {
  const message = await openpgp.createMessage({ binary: data })
  return (await openpgp.sign({ message, signingKeys: key, detached: true, format: 'binary' })) as Uint8Array
}

export function startReleaseServer(): ReleaseServer {
  const files = new Map<string, Uint8Array>()
  const sums = new Map<string, string>()
  const redirects = new Map<string, string>()
  const hits: string[] = []
  let stale: Uint8Array | null = null
  const sumsText = () => new TextEncoder().encode([...sums].map(([asset, sum]) => `${sum}  ${asset}\n`).join(''))
  const self: ReleaseServer = {
    url: '',
    hits,
    publicKey: releaseKey.armored,
    signing: 'good',
    publish(asset, bytes, opts = {}) {
      stale = sumsText()
      files.set(asset, bytes)
      sums.set(asset, opts.sum ?? sha256(bytes))
    },
    tamper(asset, bytes) {
      files.set(asset, bytes)
    },
    redirect(name, location) {
      if (location) redirects.set(name, location)
      else redirects.delete(name)
    },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const name = new URL(req.url).pathname.replace(/^\/+/, '')
      hits.push(name)
      const to = redirects.get(name)
      if (to) return new Response(null, { status: 302, headers: { location: to } })
      if (name === 'SHA2-256SUMS') return new Response(sumsText())
      if (name === 'SHA2-256SUMS.sig') {
        if (self.signing === 'none') return new Response('not found', { status: 404 })
        const data = self.signing === 'stale' ? (stale ?? new Uint8Array()) : sumsText()
        const sig = await signDetached(data, self.signing === 'other' ? otherKey.privateKey : releaseKey.privateKey)
        return new Response(new Blob([sig as Uint8Array<ArrayBuffer>]), { headers: { 'content-type': 'application/octet-stream' } })
      }
      const file = files.get(name)
      return file ? new Response(new Blob([file as Uint8Array<ArrayBuffer>]), { headers: { 'content-type': 'application/octet-stream' } }) : new Response('not found', { status: 404 })
    },
  })
  self.url = `http://127.0.0.1:${server.port}`
  return self
}

const DEBIAN_YT_DLP = '/usr/lib/python3/dist-packages/yt_dlp'

/** Debian's yt_dlp as a runnable zipapp that reports `version` (stored, not deflated: fast to make). */
export async function zipappBuild(version: string): Promise<Uint8Array> {
  const script = `
import os, sys, zipfile, io
src, version = sys.argv[1], sys.argv[2]
buf = io.BytesIO()
buf.write(b'#!/usr/bin/env python3\\n')
with zipfile.ZipFile(buf, 'a', zipfile.ZIP_STORED) as z:
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        for f in files:
            if not f.endswith('.py'):
                continue
            path = os.path.join(root, f)
            name = os.path.join('yt_dlp', os.path.relpath(path, src))
            if name == 'yt_dlp/version.py':
                z.writestr(name, "__version__ = %r\\nRELEASE_GIT_HEAD = ''\\nVARIANT = None\\nUPDATE_HINT = None\\nCHANNEL = 'stable'\\nORIGIN = 'yt-dlp/yt-dlp'\\n_pkg_version = %r\\n" % (version, version))
            else:
                z.write(path, name)
    z.writestr('__main__.py', 'import yt_dlp, sys\\nsys.exit(yt_dlp.main())\\n')
sys.stdout.buffer.write(buf.getvalue())
`
  const proc = Bun.spawn(['python3', '-c', script, DEBIAN_YT_DLP, version], { stdout: 'pipe', stderr: 'pipe' })
  const [bytes, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`zipapp build failed: ${err}`)
  return bytes
}

/** A sh script build: answers `--version` with `version`, then runs `body` (sh) with the arguments. */
export function scriptBuild(version: string, body: string): Uint8Array {
  return new TextEncoder().encode(`#!/bin/sh\nfor a in "$@"; do [ "$a" = --version ] && { echo ${version}; exit 0; }; done\n${body}\n`)
}

/** The fixture text a build prints for an outdated extractor (tests/fixtures/tool-errors.json, `nsig`). */
export function nsigText(): string {
  const cases = (JSON.parse(readFileSync(join(import.meta.dir, '../fixtures/tool-errors.json'), 'utf8')) as { cases: { id: string; text: string }[] }).cases
  return cases.find((c) => c.id === 'nsig')!.text
}
