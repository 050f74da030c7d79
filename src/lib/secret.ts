import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { encodeBase64, decodeBase64 } from '@oslojs/encoding'

/**
 * The app secret: APP_SECRET, or one generated once and kept in DATA_DIR/secret
 * (mode 600). Two processes starting at once agree on one secret: each writes
 * its candidate to a private temporary file (`wx`) and links it into place,
 * which fails when the file is already there; the loser reads the winner's.
 * A reader never sees a half-written file.
 */
export function loadSecret(appSecret: string | undefined, dataDir: string): string {
  if (appSecret) return appSecret
  const file = join(dataDir, 'secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dirname(file), { recursive: true })
  const generated = encodeBase64(crypto.getRandomValues(new Uint8Array(48)))
  const candidate = `${file}.${process.pid}.${crypto.randomUUID().slice(0, 8)}`
  writeFileSync(candidate, generated, { mode: 0o600, flag: 'wx' })
  try {
    linkSync(candidate, file)
    return generated
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return readFileSync(file, 'utf8').trim()
  } finally {
    rmSync(candidate, { force: true })
  }
}

/** AES-256-GCM keyed by HKDF(secret); output is base64(iv || ciphertext+tag). */
export class Cipher {
  private key: Promise<CryptoKey>

  constructor(secret: string) {
    this.key = (async () => {
      const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveKey'])
      return crypto.subtle.deriveKey(
        { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode('tunefeed:credentials') },
        base,
        { name: 'AES-GCM', length: 256 },
        false,
        ['encrypt', 'decrypt'],
      )
    })()
  }

  async encrypt(plain: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12))
    const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await this.key, new TextEncoder().encode(plain))
    const out = new Uint8Array(iv.length + sealed.byteLength)
    out.set(iv)
    out.set(new Uint8Array(sealed), iv.length)
    return encodeBase64(out)
  }

  async decrypt(sealed: string): Promise<string> {
    const bytes = decodeBase64(sealed)
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, 12) }, await this.key, bytes.slice(12))
    return new TextDecoder().decode(plain)
  }
}
