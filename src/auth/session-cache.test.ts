import { describe, expect, test } from 'bun:test'
import { SessionCache } from './session-cache.ts'

const user = (n: number) => ({ id: `id-${n}`, email: `u${n}@example.com`, admin: false })
const far = new Date(Date.now() + 30 * 24 * 3600 * 1000)

describe('SessionCache', () => {
  test('an entry lives for ttlMs, then is dropped', () => {
    const cache = new SessionCache(1000)
    cache.set('a', user(1), far, 10_000)
    expect(cache.get('a', 10_999)?.user).toEqual(user(1))
    expect(cache.get('a', 11_000)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  test("a session's own expiry wins over the TTL", () => {
    const cache = new SessionCache(60_000)
    cache.set('a', user(1), new Date(5000), 1000)
    expect(cache.get('a', 4999)).toBeDefined()
    expect(cache.get('a', 5000)).toBeUndefined()
  })

  test('forget, forgetUser by id or e-mail, clear', () => {
    const cache = new SessionCache()
    cache.set('a', user(1), far)
    cache.set('b', user(1), far)
    cache.set('c', user(2), far)
    cache.set('d', user(3), far)
    cache.forget('a')
    expect(cache.get('a')).toBeUndefined()
    cache.forgetUser({ id: 'id-1' })
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('c')).toBeDefined()
    cache.forgetUser({ email: 'u2@example.com' })
    expect(cache.get('c')).toBeUndefined()
    expect(cache.size).toBe(1)
    cache.clear()
    expect(cache.size).toBe(0)
  })

  test('bounded: the oldest entries go first', () => {
    const cache = new SessionCache(60_000, 3)
    for (let i = 0; i < 5; i++) cache.set(`s${i}`, user(i), far)
    expect(cache.size).toBe(3)
    expect(cache.get('s0')).toBeUndefined()
    expect(cache.get('s1')).toBeUndefined()
    expect(cache.get('s4')?.user).toEqual(user(4))
  })
})
