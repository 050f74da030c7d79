import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The demo's yt-dlp (YTDLP_PATH): a two-line script that runs the real yt-dlp with every
 * www.youtube.com link (youtube.com, m.youtube.com, youtu.be) moved onto the fake YouTube,
 * same path and query. The app is unchanged: it runs "yt-dlp" on a watch link as in
 * production (its pacing, its egress proxy, its format choice), and yt-dlp reads the fake's
 * watch page (scripts/fake-youtube/watch.ts) and downloads its DASH formats from 127.0.0.1.
 * The tests' stand-in (tests/support/fake-ytdlp.ts) does the same with a map per link.
 */
export function writeDemoYtdlp(dir: string, fakeUrl: string, realYtdlp = '/usr/bin/yt-dlp'): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'yt-dlp')
  const args = [process.execPath, import.meta.path, fakeUrl, realYtdlp].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  writeFileSync(path, `#!/bin/sh\nexec ${args} "$@"\n`)
  chmodSync(path, 0o755)
  return path
}

const YOUTUBE_HOSTS = new Set(['www.youtube.com', 'youtube.com', 'm.youtube.com', 'music.youtube.com'])

/** `arg` with a YouTube link moved onto `fakeUrl`; anything else as it is. */
export function onFake(arg: string, fakeUrl: string): string {
  const url = URL.parse(arg)
  if (!url || !/^https?:$/.test(url.protocol)) return arg
  const base = fakeUrl.replace(/\/$/, '')
  if (YOUTUBE_HOSTS.has(url.hostname)) return `${base}${url.pathname}${url.search}`
  if (url.hostname === 'youtu.be') return `${base}/watch?v=${encodeURIComponent(url.pathname.slice(1))}`
  return arg
}

if (import.meta.main) {
  const [fakeUrl, real, ...args] = process.argv.slice(2)
  const child = Bun.spawn([real!, ...args.map((a) => onFake(a, fakeUrl!))], { stdio: ['inherit', 'inherit', 'inherit'] })
  process.exit(await child.exited)
}
