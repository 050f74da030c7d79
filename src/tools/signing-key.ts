import { readFile } from 'node:fs/promises'
import type * as OpenPgp from 'openpgp'

// loaded when a release is checked, not at start-up (13 MB resident: docs/decisions/311)
const pgp = () => import('openpgp')

/**
 * yt-dlp's release signing key, pinned: github.com/yt-dlp/yt-dlp `public.key`
 * ("Simon Sawicki (yt-dlp signing key) <contact@grub4k.xyz>", created
 * 2023-02-26, no expiry), fingerprint AC0C BBE6 848D 6A87 3464 AF4E 57CF 6593 3B5A 7581,
 * the one yt-dlp's README ("Release Files") names for `SHA2-256SUMS.sig`.
 * YTDLP_SIGNING_KEY replaces it (docs/decisions/150-signed-ytdlp-releases.md).
 */
export const YTDLP_KEY_FINGERPRINT = 'ac0cbbe6848d6a873464af4e57cf65933b5a7581'

export const YTDLP_SIGNING_KEY = `-----BEGIN PGP PUBLIC KEY BLOCK-----

mQINBGP78C4BEAD0rF9zjGPAt0thlt5C1ebzccAVX7Nb1v+eqQjk+WEZdTETVCg3
WAM5ngArlHdm/fZqzUgO+pAYrB60GKeg7ffUDf+S0XFKEZdeRLYeAaqqKhSibVal
DjvOBOztu3W607HLETQAqA7wTPuIt2WqmpL60NIcyr27LxqmgdN3mNvZ2iLO+bP0
nKR/C+PgE9H4ytywDa12zMx6PmZCnVOOOu6XZEFmdUxxdQ9fFDqd9LcBKY2LDOcS
Yo1saY0YWiZWHtzVoZu1kOzjnS5Fjq/yBHJLImDH7pNxHm7s/PnaurpmQFtDFruk
t+2lhDnpKUmGr/I/3IHqH/X+9nPoS4uiqQ5HpblB8BK+4WfpaiEg75LnvuOPfZIP
KYyXa/0A7QojMwgOrD88ozT+VCkKkkJ+ijXZ7gHNjmcBaUdKK7fDIEOYI63Lyc6Q
WkGQTigFffSUXWHDCO9aXNhP3ejqFWgGMtCUsrbkcJkWuWY7q5ARy/05HbSM3K4D
U9eqtnxmiV1WQ8nXuI9JgJQRvh5PTkny5LtxqzcmqvWO9TjHBbrs14BPEO9fcXxK
L/CFBbzXDSvvAgArdqqlMoncQ/yicTlfL6qzJ8EKFiqW14QMTdAn6SuuZTodXCTi
InwoT7WjjuFPKKdvfH1GP4bnqdzTnzLxCSDIEtfyfPsIX+9GI7Jkk/zZjQARAQAB
tDdTaW1vbiBTYXdpY2tpICh5dC1kbHAgc2lnbmluZyBrZXkpIDxjb250YWN0QGdy
dWI0ay54eXo+iQJOBBMBCgA4FiEErAy75oSNaoc0ZK9OV89lkztadYEFAmP78C4C
GwMFCwkIBwIGFQoJCAsCBBYCAwECHgECF4AACgkQV89lkztadYEVqQ//cW7TxhXg
7Xbh2EZQzXml0egn6j8QaV9KzGragMiShrlvTO2zXfLXqyizrFP4AspgjSn/4NrI
8mluom+Yi+qr7DXT4BjQqIM9y3AjwZPdywe912Lxcw52NNoPZCm24I9T7ySc8lmR
FQvZC0w4H/VTNj/2lgJ1dwMflpwvNRiWa5YzcFGlCUeDIPskLx9++AJE+xwU3LYm
jQQsPBqpHHiTBEJzMLl+rfd9Fg4N+QNzpFkTDW3EPerLuvJniSBBwZthqxeAtw4M
UiAXh6JvCc2hJkKCoygRfM281MeolvmsGNyQm+axlB0vyldiPP6BnaRgZlx+l6MU
cPqgHblb7RW5j9lfr6OYL7SceBIHNv0CFrt1OnkGo/tVMwcs8LH3Ae4a7UJlIceL
V54aRxSsZU7w4iX+PB79BWkEsQzwKrUuJVOeL4UDwWajp75OFaUqbS/slDDVXvK5
OIeuth3mA/adjdvgjPxhRQjA3l69rRWIJDrqBSHldmRsnX6cvXTDy8wSXZgy51lP
m4IVLHnCy9m4SaGGoAsfTZS0cC9FgjUIyTyrq9M67wOMpUxnuB0aRZgJE1DsI23E
qdvcSNVlO+39xM/KPWUEh6b83wMn88QeW+DCVGWACQq5N3YdPnAJa50617fGbY6I
gXIoRHXkDqe23PZ/jURYCv0sjVtjPoVC+bg=
=bJkn
-----END PGP PUBLIC KEY BLOCK-----`

/** The key a release must be signed with: YTDLP_SIGNING_KEY (armored text, or a file holding it), else the pinned one. */
export async function releaseKey(setting: string | undefined): Promise<OpenPgp.PublicKey> {
  let armored = YTDLP_SIGNING_KEY
  if (setting) {
    if (setting.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) armored = setting
    else {
      try {
        armored = await readFile(setting, 'utf8')
      } catch {
        throw new SignatureRefused(`YTDLP_SIGNING_KEY is neither an armored OpenPGP public key nor a readable file (${setting}).`)
      }
    }
  }
  let key: OpenPgp.PublicKey
  try {
    key = await (await pgp()).readKey({ armoredKey: armored })
  } catch {
    throw new SignatureRefused('YTDLP_SIGNING_KEY does not hold an OpenPGP public key (armored).')
  }
  // the pinned key is the one whose fingerprint yt-dlp's README names: a changed copy verifies nothing
  if (!setting && key.getFingerprint() !== YTDLP_KEY_FINGERPRINT) {
    throw new SignatureRefused(`The pinned yt-dlp signing key is not the one with fingerprint ${YTDLP_KEY_FINGERPRINT}.`)
  }
  return key
}

export class SignatureRefused extends Error {
  override name = 'SignatureRefused'
}

/**
 * Checks the detached signature `sig` (binary, as yt-dlp publishes it, or
 * armored) over `data` against `key`; throws SignatureRefused saying why.
 */
export async function verifyDetached(data: Uint8Array, sig: Uint8Array, key: OpenPgp.PublicKey, what = 'SHA2-256SUMS'): Promise<void> {
  const openpgp = await pgp()
  let signature: OpenPgp.Signature
  try {
    const text = new TextDecoder().decode(sig.subarray(0, 64))
    signature = text.includes('-----BEGIN PGP SIGNATURE-----')
      ? await openpgp.readSignature({ armoredSignature: new TextDecoder().decode(sig) })
      : await openpgp.readSignature({ binarySignature: sig })
  } catch {
    throw new SignatureRefused(`${what}.sig is not an OpenPGP signature: the release was not used.`)
  }
  const message = await openpgp.createMessage({ binary: data })
  const result = await openpgp.verify({ message, signature, verificationKeys: key })
  const first = result.signatures[0]
  try {
    if (!first) throw new Error('no signature')
    await first.verified
  } catch (err) {
    const signer = first?.keyID.toHex() ?? 'nobody'
    const known = key.getKeyIDs().some((id) => id.toHex() === signer)
    throw new SignatureRefused(
      known
        ? `${what}.sig does not match ${what} (${err instanceof Error ? err.message : String(err)}): the release was not used.`
        : `${what} is signed by key ${signer.toUpperCase()}, not by the release key ${key.getFingerprint().toUpperCase()}: the release was not used.`,
    )
  }
}
