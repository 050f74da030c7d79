import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { and, eq, isNull } from 'drizzle-orm'
import { createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { setAdmin } from '../auth/queries.ts'
import { users } from '../auth/tables.ts'

// The last enabled admin stays, also when two admins act at once: run with
// TEST_DATABASE_URL for PostgreSQL, where the requests really overlap (a pool
// of connections), and without it for PGlite.
setDefaultTimeout(60_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
}, 120_000)
afterAll(() => t?.close())

const enabledAdmins = async () =>
  (await t.ctx.db.select({ id: users.id }).from(users).where(and(eq(users.admin, true), isNull(users.disabledAt)))).length

/** Two fresh admins and no other enabled admin in the app. */
async function twoAdmins() {
  await t.ctx.db.update(users).set({ admin: false }).where(eq(users.admin, true))
  return [await quickUser(t, { admin: true }), await quickUser(t, { admin: true })] as const
}

type Admin = Awaited<ReturnType<typeof quickUser>>
const remove = (by: Admin, who: Admin) => by.client.request(`/api/admin/users/${who.id}`, { method: 'DELETE' })
const patch = (by: Admin, who: Admin, json: object) => by.client.request(`/api/admin/users/${who.id}`, { method: 'PATCH', json })

describe('DELETE /api/auth/account by the last admin', () => {
  test('409 Cannot remove the last admin.; the account and its session stay; with a second admin it goes', async () => {
    await t.ctx.db.update(users).set({ admin: false }).where(eq(users.admin, true))
    const { client, email, password } = await signUp(t)
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, email))
    const del = () => client.request('/api/auth/account', { method: 'DELETE', json: { password } })
    await expectError(del(), 409, 'Cannot remove the last admin.')
    expect(await t.ctx.db.select().from(users).where(eq(users.email, email))).toHaveLength(1)
    expect((await client.get('/api/auth/session')).status).toBe(200)
    // a wrong password is still that answer first
    await expectError(client.request('/api/auth/account', { method: 'DELETE', json: { password: 'wrong password' } }), 400, 'Incorrect password.')
    await quickUser(t, { admin: true })
    expect((await del()).status).toBe(204)
    expect(await t.ctx.db.select().from(users).where(eq(users.email, email))).toHaveLength(0)
  })

  test('a disabled admin or a normal user may delete their account', async () => {
    const { client, password } = await signUp(t)
    expect((await client.request('/api/auth/account', { method: 'DELETE', json: { password } })).status).toBe(204)
  })
})

describe('two admins at once', () => {
  // each round: both requests start together; whatever the order, one enabled admin is left
  const ROUNDS = 4

  test('removing each other: one succeeds, the other is refused', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const [a, b] = await twoAdmins()
      const answers = await Promise.all([remove(a, b), remove(b, a)])
      const statuses = answers.map((r) => r.status).sort()
      expect(await enabledAdmins()).toBe(1)
      // the loser is refused (409), or no longer signed in when its request began after the other committed (401)
      expect(statuses[0]).toBe(204)
      expect([401, 409]).toContain(statuses[1]!)
    }
  })

  test('demoting or disabling each other, and mixed with a removal', async () => {
    const changes = [
      [{ admin: false }, { admin: false }],
      [{ disabled: true }, { disabled: true }],
      [{ admin: false }, { disabled: true }],
    ] as const
    for (let round = 0; round < ROUNDS; round++) {
      for (const [one, two] of changes) {
        const [a, b] = await twoAdmins()
        const answers = await Promise.all([patch(a, b, one), patch(b, a, two)])
        expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
        expect(await enabledAdmins()).toBe(1)
      }
      const [a, b] = await twoAdmins()
      await Promise.all([remove(a, b), patch(b, a, { admin: false })])
      expect(await enabledAdmins()).toBe(1)
    }
  })

  test('an admin deleting their own account while the other admin removes them', async () => {
    for (let round = 0; round < 2; round++) {
      await t.ctx.db.update(users).set({ admin: false }).where(eq(users.admin, true))
      const self = await signUp(t)
      await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, self.email))
      const other = await quickUser(t, { admin: true })
      const [selfId] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, self.email))
      await Promise.all([
        self.client.request('/api/auth/account', { method: 'DELETE', json: { password: self.password } }),
        other.client.request(`/api/admin/users/${selfId!.id}`, { method: 'DELETE' }),
        patch(other as Admin, other as Admin, { admin: false }),
      ])
      expect(await enabledAdmins()).toBe(1)
    }
  })
})

describe('setAdmin (scripts and tests)', () => {
  test('takes the same lock and check: the last admin is not demoted, one of two is, and an unknown e-mail is false', async () => {
    const [a, b] = await twoAdmins()
    expect(await setAdmin(t.ctx.db, a.email, false)).toBe(true)
    await expect(setAdmin(t.ctx.db, b.email, false)).rejects.toThrow('Cannot remove the last admin.')
    expect(await enabledAdmins()).toBe(1)
    // two demotions at once leave one admin, whatever the order
    expect(await setAdmin(t.ctx.db, a.email, true)).toBe(true)
    const both = await Promise.allSettled([setAdmin(t.ctx.db, a.email, false), setAdmin(t.ctx.db, b.email, false)])
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(await enabledAdmins()).toBe(1)
    expect(await setAdmin(t.ctx.db, 'nobody@example.com', true)).toBe(false)
  })
})
