import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import type { Cipher } from '../lib/secret.ts'
import type { WebdavAccount } from './schema.ts'
import { webdavAccounts } from './tables.ts'

/** The stored password no longer decrypts: APP_SECRET (or DATA_DIR/secret) changed since it was saved. */
export class WebdavUnreadable extends Error {
  constructor() {
    super('The saved WebDAV password can no longer be read (the server\'s secret changed). Enter the WebDAV account again.')
  }
}

/** The user's account, null without one; throws WebdavUnreadable when its password does not decrypt. */
export async function getWebdav(db: Db, cipher: Cipher, userId: string): Promise<WebdavAccount | null> {
  const [row] = await db.select().from(webdavAccounts).where(eq(webdavAccounts.userId, userId))
  if (!row) return null
  let password: string
  try {
    password = await cipher.decrypt(row.passwordEnc)
  } catch {
    throw new WebdavUnreadable()
  }
  return { username: row.username, password, url: row.url }
}

export async function saveWebdav(db: Db, cipher: Cipher, userId: string, account: WebdavAccount) {
  const values = { username: account.username, passwordEnc: await cipher.encrypt(account.password), url: account.url, updatedAt: new Date() }
  await db
    .insert(webdavAccounts)
    .values({ userId, ...values })
    .onConflictDoUpdate({ target: webdavAccounts.userId, set: values })
}

export async function deleteWebdav(db: Db, userId: string) {
  await db.delete(webdavAccounts).where(eq(webdavAccounts.userId, userId))
}
