import { z } from 'zod'
import { printable, required as missing } from '../lib/fields.ts'

const required = (max: number) => z.string({ error: missing }).min(1, 'Required').max(max)

export const webdavAccount = z.object({
  username: printable(required(256)),
  password: required(1024),
  url: printable(required(2048)).pipe(z.url({ protocol: /^https?$/, error: 'Invalid URL' })),
})

export type WebdavAccount = z.infer<typeof webdavAccount>

/** Why a WebDAV account could not be saved: the `x-error-kind` of the 400 `Error connecting to webdav server.` */
export type WebdavProblem = 'sign_in_refused' | 'not_found' | 'not_webdav' | 'redirected' | 'unreachable' | 'timeout' | 'refused_address'

/** The sentence the form adds after 'Error connecting to webdav server.' for each problem. */
export const WEBDAV_PROBLEMS: Record<WebdavProblem, string> = {
  sign_in_refused: 'The server refused the sign-in: check the username and password (some servers want an app password).',
  not_found: 'The server was found, but nothing is at this URL: check the path (the folder must exist).',
  not_webdav: 'The server answered, but not as a WebDAV server: check the URL (for Nextcloud it ends in /remote.php/dav/files/<user>/).',
  redirected: 'The URL redirects elsewhere: use the address it leads to (often the same with or without a final /, or https).',
  unreachable: 'The server was not found or refused the connection: check the host name and port in the URL.',
  timeout: 'The server did not answer within 10 seconds: check the URL, or try again later.',
  refused_address: 'This URL points to a private or local address the app may not reach (an admin can allow it with FETCH_ALLOW_HOSTS).',
}
