import { createHmac, timingSafeEqual } from 'node:crypto'

const ALGORITHMS: Record<string, string> = { sha1: 'sha1', sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' }

/** `X-Hub-Signature: <method>=<hex>` (WebSub §8): the HMAC of the raw body with the secret, compared in constant time. */
export function signatureValid(header: string | undefined, body: Uint8Array, secret: string): boolean {
  if (!header) return false
  const eq = header.indexOf('=')
  if (eq < 0) return false
  const algorithm = ALGORITHMS[header.slice(0, eq).trim().toLowerCase()]
  const given = header.slice(eq + 1).trim()
  if (!algorithm || !/^[0-9a-f]+$/i.test(given)) return false
  const expected = createHmac(algorithm, secret).update(body).digest()
  const actual = Buffer.from(given, 'hex')
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

export function sign(algorithm: 'sha1' | 'sha256' | 'sha384' | 'sha512', body: string | Uint8Array, secret: string): string {
  return `${algorithm}=${createHmac(algorithm, secret).update(body).digest('hex')}`
}
