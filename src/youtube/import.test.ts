import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { expectError } from '../../tests/support/http.ts'
import { resetYoutube, ledgerUnits, quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { ImportError, parseSubscriptionsFile } from './import.ts'
import { youtubeQuotaDays } from './tables.ts'

let fake: FakeYoutube
let t: YoutubeTestApp
beforeAll(async () => ({ fake } = t = await startYoutubeTestApp()), 60_000)
afterAll(() => t.close())
afterEach(() => resetYoutube(t))

const UNKNOWN = 'UCzzzzzzzzzzzzzzzzzzzzzz'
const id = (h: string) => fake.channel(h).id

function takeout(ids: string[]) {
  const rows = ids.map((i) => `${i},http://www.youtube.com/channel/${i},"Title, with comma"`)
  return ['Channel Id,Channel Url,Channel Title', ...rows].join('\r\n') + '\r\n'
}
function newpipe(urls: string[]) {
  return JSON.stringify({
    app_version: '0.27.6',
    app_version_int: 1001,
    subscriptions: [
      ...urls.map((url, i) => ({ service_id: 0, url, name: `Channel ${i}` })),
      { service_id: 1, url: 'https://soundcloud.com/someone', name: 'Not YouTube' },
    ],
  })
}
function opml(ids: string[]) {
  const outlines = ids
    .map((i) => `<outline text="Ch &amp; co" title="Ch" type="rss" xmlUrl="https://www.youtube.com/feeds/videos.xml?channel_id=${i}"/>`)
    .join('\n      ')
  return `<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.1">
  <head><title>Subscriptions</title></head>
  <body>
    <outline text="YouTube Subscriptions" title="YouTube Subscriptions">
      ${outlines}
    </outline>
  </body>
</opml>`
}

function upload(client: { request: (p: string, i: RequestInit) => Promise<Response> }, content: string | Blob, name = 'subscriptions.csv') {
  const form = new FormData()
  form.set('file', content instanceof Blob ? content : new Blob([content]), name)
  return client.request('/api/youtube/subscriptions/import', { method: 'POST', body: form })
}

describe('parsing the three formats', () => {
  test('Takeout CSV, NewPipe JSON, OPML', () => {
    const a = id('@lofi-garden')
    const b = id('@star-lab')
    expect(parseSubscriptionsFile(`\uFEFF${takeout([a, b, a])}`)).toEqual({ format: 'takeout-csv', refs: [a, b], invalid: 0 })
    expect(parseSubscriptionsFile(newpipe([`https://www.youtube.com/channel/${a}`, 'https://www.youtube.com/@Star-Lab', 'https://example.com/x']))).toEqual({
      format: 'newpipe-json',
      refs: [a, '@star-lab'],
      invalid: 1,
    })
    expect(parseSubscriptionsFile(opml([a, b]))).toEqual({ format: 'opml', refs: [a, b], invalid: 0 })
  })

  test('malformed files say what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['{"subscriptions": [', /not valid JSON/],
      ['{"something": []}', /no "subscriptions" list/],
      ['<html><body>hi</body></html>', /not an OPML document/],
      ['<!DOCTYPE x [<!ENTITY a "b">]><opml><body></body></opml>', /DOCTYPE/],
      ['just some text\nand more', /no "Channel Id" column/],
      ['Channel Id,Channel Url,Channel Title\r\n', /lists no channels/],
      ['Channel Id,Channel Url\r\nnot-an-id,http://example.com\r\n', /names no YouTube channels/],
      ['Channel Id\r\n"UCunclosed', /unclosed quote/],
    ]
    for (const [text, message] of cases) expect(() => parseSubscriptionsFile(text)).toThrow(message)
    expect(() => parseSubscriptionsFile('{}')).toThrow(ImportError)
  })
})

describe('POST /api/youtube/subscriptions/import', () => {
  test('Takeout CSV: added, already present and not found are counted; one unit per 50 unknown ids', async () => {
    const user = await quickUser(t)
    await user.client.put('/api/youtube/subscriptions/user?channel_id=@lofi-garden')
    const units = await ledgerUnits(t)
    const res = await upload(user.client, takeout([id('@lofi-garden'), id('@star-lab'), id('@pixel-arcade'), UNKNOWN]))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ format: 'takeout-csv', added: 2, alreadyPresent: 1, notFound: 1 })
    expect((await ledgerUnits(t)) - units).toBe(1)
    const list = await (await user.client.get('/api/youtube/subscriptions/list')).json()
    expect(list.channels.map((c: { title: string }) => c.title)).toEqual(['Lofi Garden', 'Pixel Arcade', 'Star Lab'])
    // the same file again adds nothing
    expect(await (await upload(user.client, takeout([id('@star-lab')]))).json()).toMatchObject({ added: 0, alreadyPresent: 1 })
    t.jobs.waiting = []
  })

  test('NewPipe JSON with channel URLs and a handle URL', async () => {
    const user = await quickUser(t)
    const res = await upload(
      user.client,
      newpipe([`https://www.youtube.com/channel/${id('@retro-motors')}`, 'https://www.youtube.com/@tiny-kitchen', 'https://www.youtube.com/@nobody-at-all']),
      'newpipe.json',
    )
    expect(await res.json()).toEqual({ format: 'newpipe-json', added: 2, alreadyPresent: 0, notFound: 1 })
    expect(t.jobs.waiting.map((j) => j.def.name)).toEqual(['youtube.refreshChannel', 'youtube.refreshChannel'])
    t.jobs.waiting = []
  })

  test('OPML', async () => {
    const user = await quickUser(t)
    const res = await upload(user.client, opml([id('@quiet-channel'), id('@viewer-alice'), UNKNOWN]), 'subs.opml')
    expect(await res.json()).toEqual({ format: 'opml', added: 2, alreadyPresent: 0, notFound: 1 })
    t.jobs.waiting = []
  })

  test('bad uploads are clear 4xx, and write nothing', async () => {
    const user = await quickUser(t)
    await expectError(upload(user.client, '{"subscriptions": ['), 422, 'The JSON file is not valid JSON.')
    await expectError(upload(user.client, '<opml><head/></opml>'), 422, 'The XML file is not an OPML document.')
    await expectError(upload(user.client, new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])])), 422, /Channel Id/)
    await expectError(upload(user.client, ''), 422, 'file: Required')
    await expectError(upload(user.client, 'x'.repeat(2 * 1024 * 1024 + 1)), 413, 'file: too large.')
    const noFile = new FormData()
    noFile.set('other', 'value')
    await expectError(user.client.request('/api/youtube/subscriptions/import', { method: 'POST', body: noFile }), 422, 'file: Required')
    await expectError(user.client.post('/api/youtube/subscriptions/import', { file: 'x' }), 415)
    const broken = await user.client.request('/api/youtube/subscriptions/import', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nChannel Id',
    })
    expect(broken.status).toBe(422)
    expect(await (await user.client.get('/api/youtube/subscriptions/list')).json()).toEqual({ channels: [], totalPages: 0 })
  })

  test('quota exhausted while resolving: 503 with Retry-After, nothing written', async () => {
    const user = await quickUser(t)
    const unstored = [...fake.channels.values()].filter((c) => c.handle.endsWith('-30') || c.handle.endsWith('-31')).map((c) => c.id)
    fake.quota = fake.units
    const res = await upload(user.client, takeout(unstored))
    await expectError(res.clone(), 503, /quota/)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await (await user.client.get('/api/youtube/subscriptions/list')).json()).toEqual({ channels: [], totalPages: 0 })
    fake.reset()
    await t.ctx.db.delete(youtubeQuotaDays)
  })
})
