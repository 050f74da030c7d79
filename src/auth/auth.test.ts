import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('auth', () => {
  test('sign up, verify, login, session, logout', async () => {
    const { client, email } = await signUp(t)
    const session = await client.get('/api/auth/session')
    expect(session.status).toBe(200)
    expect(await session.json()).toEqual({ id: expect.any(String), email, admin: false })
    const out = await client.delete('/api/auth/logout')
    expect(out.status).toBe(200)
    expect((await client.get('/api/auth/session')).status).toBe(401)
  })

  test('login refuses unverified accounts only after a correct password', async () => {
    const c = new Client(t)
    await c.post('/api/auth/create', { email: 'unverified@example.com', password: 'password123' })
    const wrong = await c.post('/api/auth/login', { email: 'unverified@example.com', password: 'nope-nope' })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ detail: 'Incorrect email or password.' })
    const right = await c.post('/api/auth/login', { email: 'unverified@example.com', password: 'password123' })
    expect(await right.json()).toEqual({ detail: 'Account is unverified.' })
  })
})
