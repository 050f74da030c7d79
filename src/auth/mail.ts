import type { Mail } from '../lib/mailer.ts'
import { RESET_TTL_MS } from './queries.ts'

export function verificationMail(to: string, link: string): Mail {
  return {
    to,
    subject: 'Verify your Tunefeed account',
    text: `Welcome to Tunefeed!\n\nVerify your account by opening this link (valid for 24 hours):\n\n${link}\n\nIf you did not sign up, ignore this e-mail.\n`,
    html: `<p>Welcome to Tunefeed!</p><p>Verify your account by opening this link (valid for 24 hours):</p><p><a href="${link}">${link}</a></p><p>If you did not sign up, ignore this e-mail.</p>`,
    logLink: link,
  }
}

/** What a reset does besides the password (src/auth/routes.ts, POST /reset). */
export const RESET_ENDS =
  'Resetting signs you out everywhere, revokes your API tokens and your music players\' app password, and changes your podcast feed addresses: make new ones afterwards.'

export function resetMail(to: string, code: string): Mail {
  const minutes = RESET_TTL_MS / 60_000
  return {
    to,
    subject: 'Your Tunefeed password reset code',
    text: `Your password reset code is: ${code}\n\nIt is valid for ${minutes} minutes and can be used once.\n${RESET_ENDS}\nIf you did not ask for it, ignore this e-mail.\n`,
    html: `<p>Your password reset code is:</p><p style="font-size:24px;font-family:monospace;letter-spacing:4px"><b>${code}</b></p><p>It is valid for ${minutes} minutes and can be used once. ${RESET_ENDS}</p><p>If you did not ask for it, ignore this e-mail.</p>`,
  }
}
