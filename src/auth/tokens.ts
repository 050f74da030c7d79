import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'

/** 160 random bits, base32: session cookies and verification links. */
export function randomToken(): string {
  return encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(20)))
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

/** Short code a person can type from an e-mail (8 characters, no look-alikes). */
export function randomCode(length = 8): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length))
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('')
}

/**
 * What the database keeps instead of a token: hex SHA-256 of the trimmed token.
 * Runs on every request with a session cookie, so it uses Bun's native hasher
 * (about 6x faster than a JavaScript SHA-256).
 */
export function hashToken(token: string): string {
  return Bun.CryptoHasher.hash('sha256', token.trim(), 'hex')
}
