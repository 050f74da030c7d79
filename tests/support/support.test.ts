import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import nodemailer from 'nodemailer'
import { createClient } from 'webdav'
import { resetCode, startSmtp, verifyLink, type TestSmtp } from './smtp.ts'
import { startRcloneWebdav, startWebdavServer, type TestWebdav } from './webdav.ts'

// The stand-ins themselves: other tests rely on what they report.

describe('startSmtp', () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.stop())

  test('receives over TCP, decodes quoted-printable, base64 and encoded headers, and hands out each mail once', async () => {
    const transport = nodemailer.createTransport({ host: smtp.host, port: smtp.port, secure: false, ignoreTLS: true })
    const longLine = `Grüße ${'x'.repeat(120)} http://localhost:3000/verify/abcdefghijklmnopqrstuvwxyz234567`
    const waiting = smtp.nextMail('Someone@Example.com')
    await transport.sendMail({
      from: 'a@example.com',
      to: 'someone@example.com',
      subject: 'Grüße ✓',
      text: `${longLine}\nYour password reset code is: ABCD2345\n`,
      html: `<p>${longLine}</p>`,
    })
    const mail = await waiting
    expect(mail.subject).toBe('Grüße ✓')
    expect(mail.to).toEqual(['someone@example.com'])
    expect(mail.text).toContain(longLine)
    expect(mail.html).toContain('<p>Grüße')
    expect(verifyLink(mail)).toBe('http://localhost:3000/verify/abcdefghijklmnopqrstuvwxyz234567')
    expect(resetCode(mail)).toBe('ABCD2345')

    await transport.sendMail({ from: 'a@example.com', to: 'someone@example.com', subject: 'b64', text: 'é'.repeat(200), textEncoding: 'base64' })
    expect((await smtp.nextMail('someone@example.com')).text).toBe('é'.repeat(200))
    await expect(smtp.nextMail('someone@example.com', { timeoutMs: 100 })).rejects.toThrow('no mail')
    expect(smtp.mailsTo('someone@example.com')).toHaveLength(2)
  })

  test('accepts authenticated senders too and refuses a wrong password', async () => {
    const good = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      ignoreTLS: true,
      auth: { user: smtp.username, pass: smtp.password },
    })
    await good.sendMail({ from: 'a@example.com', to: 'auth@example.com', subject: 's', text: 't' })
    expect((await smtp.nextMail('auth@example.com')).subject).toBe('s')
    const bad = nodemailer.createTransport({ host: smtp.host, port: smtp.port, ignoreTLS: true, auth: { user: 'x', pass: 'y' } })
    await expect(bad.sendMail({ from: 'a@example.com', to: 'auth@example.com', subject: 's', text: 't' })).rejects.toThrow()
  })
})

describe.each([
  ['webdav-server (in process)', startWebdavServer],
  ['rclone serve webdav', startRcloneWebdav],
] as const)('%s', (_name, start) => {
  let dav: TestWebdav
  beforeAll(async () => {
    dav = await start()
  })
  afterAll(() => dav.stop())

  test('stores what a WebDAV client uploads, readable from disk', async () => {
    const client = createClient(dav.url, { username: dav.username, password: dav.password })
    await client.createDirectory('/Music')
    const bytes = Buffer.from(crypto.getRandomValues(new Uint8Array(4096)))
    await client.putFileContents('/Music/track one.mp3', bytes)
    expect(dav.exists('/Music/track one.mp3')).toBe(true)
    expect(dav.readFile('Music/track one.mp3').equals(bytes)).toBe(true)
    expect(dav.listFiles()).toEqual(['Music/track one.mp3'])
  })

  test('requires its credentials', async () => {
    const res = await fetch(dav.url, { method: 'PROPFIND', headers: { depth: '0' } })
    expect(res.status).toBe(401)
    const wrong = await fetch(dav.url, {
      method: 'PROPFIND',
      headers: { depth: '0', authorization: `Basic ${btoa(`${dav.username}:wrong`)}` },
    })
    expect(wrong.status).toBe(401)
  })
})
