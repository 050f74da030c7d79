import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { createYoutubeTestApp, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { runProcess } from '../../lib/process.ts'
import { ART_SIZE, channelArt } from './art.ts'

// Podcast artwork from a channel thumbnail that is not a JPEG (issue 37, polish): the fake
// YouTube's channel art is SVG, as the offline demo's is; it becomes the 1400 px square JPEG.
setDefaultTimeout(60_000)

let fake: FakeYoutube
let t: YoutubeTestApp
beforeAll(async () => {
  fake = await startTestFake()
  t = await createYoutubeTestApp(fake, { FETCH_ALLOW_HOSTS: '127.0.0.1' })
}, 120_000)
afterAll(async () => {
  await t?.close()
  await fake?.stop()
})

test('an SVG thumbnail becomes a square JPEG', async () => {
  const channel = fake.channel('@star-lab')
  const svg = `${fake.url}/channel-art/${channel.id}.svg`
  expect(await (await fetch(svg)).text()).toContain('<svg')
  const path = await channelArt(t.ctx, channel.id, svg, new AbortController().signal)
  expect(path).toEndWith('.jpg')
  const bytes = readFileSync(path!)
  expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8])
  // ffmpeg describes the input on stderr (and exits 1 without an output)
  let described = ''
  await runProcess([t.ctx.tools.ffmpeg!.path, '-hide_banner', '-nostdin', '-i', path!], { onStderrLine: (l) => void (described += `${l}\n`) })
  expect(described).toContain(`${ART_SIZE}x${ART_SIZE}`)
})

test('something that is no image: no artwork (the route answers 404)', async () => {
  expect(await channelArt(t.ctx, 'UCnothing', `${fake.url}/feeds/videos.xml?channel_id=nothing`, new AbortController().signal)).toBeNull()
})
