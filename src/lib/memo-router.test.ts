import { describe, expect, test } from 'bun:test'
import { Hono } from 'hono'
import { sessionToken } from '../auth/session.ts'
import { MemoTrieRouter } from './memo-router.ts'

describe('MemoTrieRouter', () => {
  const app = new Hono({ router: new MemoTrieRouter() })
    .use(async (c, next) => {
      await next()
      c.res.headers.set('x-seen', '1')
    })
    .get('/jobs/list', (c) => c.text('list'))
    .post('/jobs/list', (c) => c.text('posted'))
    .get('/jobs/:id/download', (c) => c.text(`download ${c.req.param('id')}`))
    .get('/jobs/:id', (c) => c.text(`job ${c.req.param('id')}`))
    .all('*', (c) => c.text('other', 404))

  test('a static route beside a parameter answers the same each time, parameters are never shared', async () => {
    for (let i = 0; i < 3; i++) {
      const list = await app.request('/jobs/list')
      expect(await list.text()).toBe('list')
      expect(list.headers.get('x-seen')).toBe('1')
      expect(await (await app.request(`/jobs/a${i}/download`)).text()).toBe(`download a${i}`)
      expect(await (await app.request(`/jobs/b${i}`)).text()).toBe(`job b${i}`)
      const other = await app.request('/nowhere')
      expect([other.status, await other.text()]).toEqual([404, 'other'])
    }
  })

  test('the same path under two methods is remembered for each', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await (await app.request('/jobs/list', { method: 'POST' })).text()).toBe('posted')
      expect(await (await app.request('/jobs/list')).text()).toBe('list')
      expect((await app.request('/jobs/list', { method: 'PUT' })).status).toBe(404)
    }
  })

  test('many unknown paths keep answering (the memory starts over when full)', async () => {
    for (let i = 0; i < 1200; i++) expect((await app.request(`/x/${i}`)).status).toBe(404)
    expect(await (await app.request('/jobs/list')).text()).toBe('list')
  })
})

describe('sessionToken', () => {
  test('finds the whole cookie name only', () => {
    expect(sessionToken('tunefeed_session=abc')).toBe('abc')
    expect(sessionToken('a=1; tunefeed_session=abc; b=2')).toBe('abc')
    expect(sessionToken('a=1;tunefeed_session="abc"')).toBe('abc')
    expect(sessionToken('x_tunefeed_session=evil; tunefeed_session=good')).toBe('good')
    expect(sessionToken('tunefeed_session_old=evil')).toBeNull()
    expect(sessionToken('a=tunefeed_session=evil')).toBeNull()
    expect(sessionToken('tunefeed_session=')).toBeNull()
    expect(sessionToken(null)).toBeNull()
  })
})
