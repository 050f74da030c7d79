import { xml } from './feed.ts'
import type { FakeYoutube } from './server.ts'

// Thumbnail URLs in API resources, and the SVG images served at them.

export function thumbnails(fake: FakeYoutube, kind: 'vi' | 'channel', id: string) {
  const base = kind === 'vi' ? `${fake.url}/vi/${id}` : `${fake.url}/channel-art/${id}`
  return kind === 'vi'
    ? {
        default: { url: `${base}/default.svg`, width: 120, height: 90 },
        medium: { url: `${base}/mqdefault.svg`, width: 320, height: 180 },
        high: { url: `${base}/hqdefault.svg`, width: 480, height: 360 },
      }
    : {
        default: { url: `${base}.svg?s=88`, width: 88, height: 88 },
        medium: { url: `${base}.svg?s=240`, width: 240, height: 240 },
        high: { url: `${base}.svg?s=800`, width: 800, height: 800 },
      }
}

export function svg(title: string | undefined, id: string, round = false): Response {
  if (!title) return new Response('Not Found', { status: 404 })
  let hash = 0
  for (const ch of id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0
  const hue = hash % 360
  const [w, h] = round ? [240, 240] : [480, 360]
  const initials = title
    .split(/\s+/)
    .map((w) => w[0])
    .join('')
    .slice(0, 3)
  const shape = round
    ? `<circle cx="120" cy="120" r="120" fill="hsl(${hue} 55% 45%)"/>`
    : `<rect width="${w}" height="${h}" fill="hsl(${hue} 45% 30%)"/><rect y="${h - 70}" width="${w}" height="70" fill="rgba(0,0,0,.45)"/>`
  const text = round
    ? `<text x="120" y="140" font-size="64" text-anchor="middle" fill="#fff" font-family="sans-serif">${xml(initials)}</text>`
    : `<text x="20" y="${h - 28}" font-size="26" fill="#fff" font-family="sans-serif">${xml(title.slice(0, 32))}</text>`
  return new Response(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${shape}${text}</svg>`, {
    headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
  })
}

