import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Transporter } from 'nodemailer'
import { log } from './logger.ts'

export interface Mail {
  to: string
  subject: string
  text: string
  html?: string
  /**
   * A link that may be printed in the log when there is no SMTP (the verification link:
   * without it a self-hoster has to dig in DATA_DIR/mail; decision 181). Never a reset code.
   */
  logLink?: string
}

export interface Mailer {
  send(mail: Mail): Promise<void>
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise each message is
 * saved as an .eml file under DATA_DIR/mail (its path logged) so a
 * self-hoster can sign up with nothing else installed.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; dataDir: string }): Mailer {
  // nodemailer is loaded at the first mail, not at start-up (7 MB resident: docs/decisions/311)
  const nodemailer = async () => (await import('nodemailer')).default
  if (opts.smtpUrl) {
    const url = new URL(opts.smtpUrl)
    let made: Promise<Transporter> | undefined
    const transport = () => (made ??= nodemailer().then((n) => n.createTransport({
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      // smtp://...?ignoreTLS=1 for local catch-all servers without a valid certificate
      ignoreTLS: url.searchParams.get('ignoreTLS') === '1',
      // a server that accepts and never answers: give up in seconds (the mail job tries again), not nodemailer's 30 s to 10 min
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    })))
    return {
      async send({ logLink: _, ...mail }) {
        await (await transport()).sendMail({ from: opts.from, ...mail })
        log.info('mail sent', { to: mail.to, subject: mail.subject })
      },
    }
  }
  const dir = join(opts.dataDir, 'mail')
  let made: Promise<Transporter> | undefined
  const stream = () => (made ??= nodemailer().then((n) => n.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })))
  return {
    async send({ logLink, ...mail }) {
      const info = await (await stream()).sendMail({ from: opts.from, ...mail })
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID().slice(0, 8)}.eml`)
      // mails carry sign-in links and reset codes: private file; the log gets its path, and only a link marked for it
      writeFileSync(file, info.message as Buffer, { mode: 0o600 })
      log.info('mail saved (no SMTP_URL)', logLink ? { file, to: mail.to, link: logLink } : { file })
    },
  }
}
