import { describe, expect, test } from 'bun:test'
import * as openpgp from 'openpgp'
import { releaseKey, SignatureRefused, YTDLP_KEY_FINGERPRINT } from './signing-key.ts'

describe('the pinned yt-dlp signing key', () => {
  test('is the key whose fingerprint yt-dlp names (AC0C BBE6 … 3B5A 7581)', async () => {
    const key = await releaseKey(undefined)
    expect(key.getFingerprint()).toBe(YTDLP_KEY_FINGERPRINT)
    expect(YTDLP_KEY_FINGERPRINT).toBe('ac0cbbe6848d6a873464af4e57cf65933b5a7581')
  })

  test('YTDLP_SIGNING_KEY replaces it without that check; something else than a key is refused', async () => {
    const { publicKey } = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'test' }], format: 'armored' })
    const key = await releaseKey(publicKey)
    expect(key.getFingerprint()).not.toBe(YTDLP_KEY_FINGERPRINT)
    await expect(releaseKey('-----BEGIN PGP PUBLIC KEY BLOCK-----\nnot a key\n-----END PGP PUBLIC KEY BLOCK-----')).rejects.toBeInstanceOf(SignatureRefused)
  })
})
