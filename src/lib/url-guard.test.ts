import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { logRefusal, startEgressProxy } from './egress-proxy.ts'
import { log } from './logger.ts'
import { guardedFetch } from './guarded-fetch.ts'
import { checkTarget, checkUrl, emptyAllowList, isBlockedAddress, parseAllowList, UrlRefused } from './url-guard.ts'
import { YOUTUBE_UNREACHABLE } from './unreachable.ts'

// Decision-level tests: private and link-local addresses are only ever judged,
// never contacted. The only traffic below goes to servers on 127.0.0.1.

describe('isBlockedAddress', () => {
  test.each([
    '169.254.169.254',
    '10.0.0.1',
    '10.255.255.254',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '100.64.0.1',
    '127.0.0.1',
    '127.0.0.2',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    'fd00::1',
    'fc00::1',
    'fe80::1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    'ff02::1',
    '[::1]',
  ])('%s is blocked', (address) => {
    expect(isBlockedAddress(address)).toBe(true)
  })

  // IPv4 hidden in IPv6 forms other than the dotted ::ffff:a.b.c.d, and the
  // NAT64 / 6to4 / site-local ranges
  test.each([
    '::7f00:1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::808:808', // IPv4-compatible: deprecated, never a real destination
    '0:0:0:0:0:ffff:7f00:1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::ffff:0:7f00:1', // IPv4-translated
    '::ffff:0:808:808',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::1',
    'fec0::1',
    'feff::1',
  ])('%s is blocked (IPv6 forms and ranges)', (address) => {
    expect(isBlockedAddress(address)).toBe(true)
  })

  test.each(['93.184.216.34', '8.8.8.8', '0:0:0:0:0:ffff:5db8:d822', '2001:4860:4860::8888', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1', '2a00:1450:4001::1', '::ffff:93.184.216.34'])(
    '%s is allowed',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false)
    },
  )

  test('anything that is not an IP address is blocked', () => {
    for (const junk of ['', 'localhost', 'example.com', '300.1.1.1', '1.2.3', 'fe80::1%eth0x', '::ffff:999.0.0.1']) {
      expect(isBlockedAddress(junk)).toBe(true)
    }
  })

  test('the allow-list opens exactly what it names', () => {
    const allow = parseAllowList('127.0.0.1, 10.1.0.0/16, ::1')
    expect(isBlockedAddress('127.0.0.1', allow)).toBe(false)
    expect(isBlockedAddress('::ffff:127.0.0.1', allow)).toBe(false)
    expect(isBlockedAddress('::1', allow)).toBe(false)
    expect(isBlockedAddress('10.1.200.3', allow)).toBe(false)
    expect(isBlockedAddress('127.0.0.2', allow)).toBe(true)
    expect(isBlockedAddress('10.2.0.1', allow)).toBe(true)
    expect(isBlockedAddress('169.254.169.254', allow)).toBe(true)
  })
})

describe('parseAllowList', () => {
  test('host names, addresses and CIDRs, comma-separated, case and spaces ignored', () => {
    const allow = parseAllowList(' Media.Example.COM ,127.0.0.0/8,, fd00::/8 ,192.168.1.5')
    expect([...allow.hosts]).toEqual(['media.example.com'])
    expect(allow.nets.check('127.8.9.10', 'ipv4')).toBe(true)
    expect(allow.nets.check('fd12::1', 'ipv6')).toBe(true)
    expect(allow.nets.check('192.168.1.5', 'ipv4')).toBe(true)
    expect(allow.nets.check('192.168.1.6', 'ipv4')).toBe(false)
  })

  test('empty means nothing is allowed', () => {
    for (const spec of ['', ' ', ',,']) {
      const allow = parseAllowList(spec)
      expect(allow.hosts.size).toBe(0)
      expect(isBlockedAddress('127.0.0.1', allow)).toBe(true)
    }
  })
})

describe('checkUrl', () => {
  const refused = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(UrlRefused)
  const resolveTo = (addresses: string[]) => async () => addresses

  test('only http and https', async () => {
    await refused(checkUrl('file:///etc/passwd'))
    await refused(checkUrl('ftp://93.184.216.34/file'))
    await refused(checkUrl('gopher://93.184.216.34/'))
    await refused(checkUrl('javascript:alert(1)'))
    await refused(checkUrl('data:text/plain,hi'))
    await expect(checkUrl('https://93.184.216.34/a')).resolves.toBeInstanceOf(URL)
    await expect(checkUrl('http://[2606:4700::1]/a')).resolves.toBeInstanceOf(URL)
  })

  test('unparsable input', async () => {
    for (const raw of ['', 'not a url', 'http://', '://x', 'http://[::1']) await refused(checkUrl(raw))
  })

  test('literal private and loopback addresses in every spelling', async () => {
    for (const raw of [
      'http://127.0.0.1/',
      'http://localhost./',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://10.0.0.1:8080/',
      'http://0/',
    ]) {
      await refused(checkUrl(raw, emptyAllowList, resolveTo(['127.0.0.1'])))
    }
  })

  test("YouTube's own name not resolving: this server cannot reach it, not a typo in the link", async () => {
    for (const raw of ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://youtu.be/dQw4w9WgXcQ', 'https://music.youtube.com/watch?v=dQw4w9WgXcQ']) {
      const err = await checkUrl(raw, emptyAllowList, resolveTo([])).catch((e: Error) => e)
      expect(err).toBeInstanceOf(UrlRefused)
      expect((err as Error).message).toBe(`t${YOUTUBE_UNREACHABLE.slice(1)}`)
    }
    // another host: still a typo to check
    expect(((await checkUrl('https://media.example/x', emptyAllowList, resolveTo([])).catch((e: Error) => e)) as Error).message).toBe(
      'the host media.example was not found; check the link for typos',
    )
  })

  test('host names are judged by every address they resolve to', async () => {
    await expect(checkUrl('https://media.example/x', emptyAllowList, resolveTo(['93.184.216.34']))).resolves.toBeInstanceOf(URL)
    await refused(checkUrl('https://media.example/x', emptyAllowList, resolveTo(['10.0.0.7'])))
    await refused(checkUrl('https://media.example/x', emptyAllowList, resolveTo(['93.184.216.34', 'fd00::1'])))
    await refused(checkUrl('https://media.example/x', emptyAllowList, resolveTo([])))
    await refused(
      checkUrl('https://media.example/x', emptyAllowList, async () => {
        throw new Error('ENOTFOUND')
      }),
    )
  })

  test('refusals name the host the user gave, never an address DNS answered', async () => {
    for (const answer of ['10.0.0.7', '169.254.169.254', 'fd00::1', '::ffff:0:7f00:1']) {
      const err = await checkUrl('https://media.example/x', emptyAllowList, resolveTo(['93.184.216.34', answer])).catch((e: Error) => e)
      expect(err).toBeInstanceOf(UrlRefused)
      expect((err as Error).message).not.toContain(answer)
      expect((err as Error).message).toContain('private or local network address')
      expect((err as Error).message).toContain('use a public link')
    }
    const literal = await checkUrl('http://10.255.255.1/v').catch((e: Error) => e)
    expect((literal as Error).message).not.toMatch(/10\.255/)
  })

  test('checkTarget answers the address that was judged (decision level)', async () => {
    const target = await checkTarget('https://media.example/x', emptyAllowList, resolveTo(['8.8.8.8']))
    expect(target.address).toBe('8.8.8.8')
    expect(target.url.hostname).toBe('media.example')
  })

  test('localhost through the system resolver is refused', async () => {
    await refused(checkUrl('http://localhost:3000/'))
  })

  test('allow-listed host names skip resolution; allow-listed addresses pass', async () => {
    const allow = parseAllowList('dav.internal,127.0.0.1')
    const never = async (): Promise<string[]> => {
      throw new Error('must not resolve')
    }
    await expect(checkUrl('http://DAV.internal:8080/remote.php', allow, never)).resolves.toBeInstanceOf(URL)
    await expect(checkUrl('http://127.0.0.1:9/', allow)).resolves.toBeInstanceOf(URL)
    await refused(checkUrl('http://127.0.0.2:9/', allow))
    await refused(checkUrl('http://[::1]:9/', allow))
  })
})

describe('guardedFetch (loopback servers only)', () => {
  let server: ReturnType<typeof Bun.serve>
  let base: string
  const hits: string[] = []

  beforeAll(() => {
    server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(req) {
        const url = new URL(req.url)
        hits.push(url.pathname)
        const port = url.port
        switch (url.pathname) {
          case '/to-127.0.0.2':
            return Response.redirect(`http://127.0.0.2:${port}/target`, 302)
          case '/to-ipv6-loopback':
            return Response.redirect(`http://[::1]:${port}/target`, 302)
          case '/to-file':
            return new Response(null, { status: 302, headers: { location: 'file:///etc/passwd' } })
          case '/to-same':
            return Response.redirect(`http://127.0.0.1:${port}/target`, 301)
          case '/relative':
            return new Response(null, { status: 307, headers: { location: '/target' } })
          case '/loop':
            return new Response(null, { status: 302, headers: { location: '/loop' } })
          case '/target':
            return new Response('landed')
          default:
            return new Response('not found', { status: 404 })
        }
      },
    })
    base = `http://127.0.0.1:${server.port}`
  })
  afterAll(() => server.stop(true))

  const allow = parseAllowList('127.0.0.1/32')

  test('without the allow-list even the first loopback hop is refused, before any request', async () => {
    const before = hits.length
    await expect(guardedFetch(`${base}/target`)).rejects.toBeInstanceOf(UrlRefused)
    expect(hits.length).toBe(before)
  })

  test('an allowed host is fetched and redirects within it are followed', async () => {
    const direct = await guardedFetch(`${base}/target`, { allow })
    expect(await direct.text()).toBe('landed')
    const same = await guardedFetch(`${base}/to-same`, { allow })
    expect(same.status).toBe(200)
    expect(await same.text()).toBe('landed')
    const relative = await guardedFetch(`${base}/relative`, { allow })
    expect(await relative.text()).toBe('landed')
  })

  test('a redirect to a loopback address outside the allow-list is refused', async () => {
    for (const path of ['/to-127.0.0.2', '/to-ipv6-loopback', '/to-file']) {
      const before = hits.filter((h) => h === '/target').length
      await expect(guardedFetch(`${base}${path}`, { allow })).rejects.toBeInstanceOf(UrlRefused)
      // the refused hop was never requested
      expect(hits.filter((h) => h === '/target').length).toBe(before)
    }
  })

  test('redirect chains are bounded', async () => {
    await expect(guardedFetch(`${base}/loop`, { allow, maxRedirects: 3 })).rejects.toThrow('redirects too many times')
  })

  test('maxRedirects 0 refuses any redirect', async () => {
    await expect(guardedFetch(`${base}/to-same`, { allow, maxRedirects: 0 })).rejects.toBeInstanceOf(UrlRefused)
  })

  test('many requests in a row all arrive (the proxy serves one request per connection: none is reused)', async () => {
    // a pooled connection the proxy had closed made every other request fail with ECONNRESET
    for (let i = 0; i < 30; i++) {
      const res = await guardedFetch(`${base}/target`, { allow, method: i % 2 ? 'POST' : 'GET', body: i % 2 ? 'x' : undefined })
      expect(await res.text()).toBe('landed')
    }
  })
})

describe('guardedFetch and DNS rebinding (loopback servers only)', () => {
  // 127.0.0.2 stands for the public address the check approves (the
  // allow-list opens it alone); 127.0.0.1 on the same port is the internal
  // service a second, rebound DNS answer points to.
  let internal: ReturnType<typeof Bun.serve>
  let approved: ReturnType<typeof Bun.serve>
  const seen = { internal: 0, approved: [] as string[] }

  beforeAll(() => {
    internal = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => (seen.internal++, new Response('internal secret')) })
    approved = Bun.serve({
      hostname: '127.0.0.2',
      port: internal.port,
      fetch: (req) => (seen.approved.push(req.headers.get('host') ?? ''), new Response('approved')),
    })
  })
  afterAll(() => {
    internal.stop(true)
    approved.stop(true)
  })

  test('a name answering the approved address first and loopback second is fetched from the approved one, looked up once', async () => {
    const answers = [['127.0.0.2'], ['127.0.0.1'], ['127.0.0.1']]
    let lookups = 0
    const rebinding = async () => answers[lookups++]!
    const allow = parseAllowList('127.0.0.2')
    const res = await guardedFetch(`http://rebind.test:${internal.port}/x`, { allow, resolve: rebinding })
    expect(await res.text()).toBe('approved')
    expect(lookups).toBe(1)
    expect(seen.approved).toEqual([`rebind.test:${internal.port}`])
    expect(seen.internal).toBe(0)
  })

  test('the proxy re-judges a pinned address: a pin to loopback is refused without traffic', async () => {
    const proxy = await startEgressProxy(parseAllowList('127.0.0.2'))
    try {
      const res = await fetch(`http://rebind.test:${internal.port}/x`, { proxy: proxy.url.replace('//', '//pin:127.0.0.1@') })
      expect(res.status).toBe(403)
      expect(res.headers.get('x-egress-refused')).toBe('1')
      expect(seen.internal).toBe(0)
    } finally {
      proxy.close()
    }
  })
})

describe('egress refusals in the log (an offline start)', () => {
  test('a host that does not resolve: one "offline" line per host and ten minutes; other refusals each time', () => {
    const lines: { msg: string; fields?: Record<string, unknown> }[] = []
    const warn = log.warn
    log.warn = (msg, fields) => void lines.push({ msg, fields })
    try {
      const notFound = new UrlRefused(`t${YOUTUBE_UNREACHABLE.slice(1)}`)
      const url = new URL('https://www.youtube.com/')
      const t0 = 1_000_000_000
      for (let i = 0; i < 10; i++) logRefusal(url, notFound, t0 + i * 1000)
      logRefusal(new URL('https://other.example/'), new UrlRefused('the host other.example was not found; check the link for typos'), t0)
      logRefusal(url, notFound, t0 + 11 * 60_000)
      logRefusal(new URL('http://10.0.0.1/'), new UrlRefused('private'), t0)
      logRefusal(new URL('http://10.0.0.1/'), new UrlRefused('private'), t0)
      expect(lines.map((l) => [l.msg.split(':')[0], l.fields?.host ?? l.fields?.url])).toEqual([
        ['offline', 'www.youtube.com'],
        ['offline', 'other.example'],
        ['offline', 'www.youtube.com'],
        ['egress refused', 'http://10.0.0.1'],
        ['egress refused', 'http://10.0.0.1'],
      ])
    } finally {
      log.warn = warn
    }
  })
})
