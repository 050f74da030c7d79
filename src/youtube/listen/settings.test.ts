import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Client } from '../../../tests/support/app.ts'
import { expectError } from '../../../tests/support/http.ts'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../../tests/support/youtube.ts'

let t: YoutubeTestApp
beforeAll(async () => {
  t = await startYoutubeTestApp()
}, 60_000)
afterAll(() => t.close())

const defaults = {
  sponsor: 'skip',
  selfpromo: 'skip',
  interaction: 'skip',
  intro: 'off',
  outro: 'off',
  preview: 'off',
  filler: 'off',
  music_offtopic: 'off',
}

test('a new user gets the defaults; a change is kept per user', async () => {
  const a = await quickUser(t)
  const b = await quickUser(t)
  const res = await a.client.get('/api/youtube/sponsorblock')
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ categories: defaults })
  const put = await a.client.put('/api/youtube/sponsorblock', { categories: { ...defaults, sponsor: 'mute', intro: 'show' } })
  expect(put.status).toBe(200)
  expect(await put.json()).toEqual({ categories: { ...defaults, sponsor: 'mute', intro: 'show' } })
  // a partial change keeps the rest
  expect((await a.client.put('/api/youtube/sponsorblock', { categories: { filler: 'skip' } })).status).toBe(200)
  expect(await (await a.client.get('/api/youtube/sponsorblock')).json()).toEqual({ categories: { ...defaults, sponsor: 'mute', intro: 'show', filler: 'skip' } })
  // B is untouched
  expect(await (await b.client.get('/api/youtube/sponsorblock')).json()).toEqual({ categories: defaults })
})

test('bad input is a 422 naming the field; anonymous is 401', async () => {
  const a = await quickUser(t)
  await expectError(a.client.put('/api/youtube/sponsorblock', {}), 422, 'categories: Required')
  await expectError(a.client.put('/api/youtube/sponsorblock', { categories: 'skip' }), 422, /^categories: /)
  await expectError(a.client.put('/api/youtube/sponsorblock', { categories: { sponsor: 'hide' } }), 422, /^categories\.sponsor: must be skip, mute, show or off/)
  await expectError(a.client.put('/api/youtube/sponsorblock', { categories: { ads: 'skip' } }), 422, /categories: unknown category ads/)
  expect(await (await a.client.get('/api/youtube/sponsorblock')).json()).toEqual({ categories: defaults })
  const anon = new Client(t)
  await expectError(anon.get('/api/youtube/sponsorblock'), 401, 'Unauthorized')
  await expectError(anon.request('/api/youtube/sponsorblock', { method: 'PUT' }), 401, 'Unauthorized')
})
