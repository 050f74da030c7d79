import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, importJWK, SignJWT, decodeJwt, type JWK } from 'jose'
import Provider from 'oidc-provider'

/**
 * A real OpenID Connect provider on 127.0.0.1: the `oidc-provider` package
 * (the certified Node implementation) with one client and a few users, its
 * own login and consent forms (any password is accepted for a known login).
 *
 * `idTokens` bends the ID tokens the token endpoint answers, re-signed with the
 * provider's real key (`expired`, `other-audience`, `other-issuer`) or with a
 * key the provider never published (`foreign-key`), to prove the app checks them.
 */
export interface TestOidcUser {
  email: string
  emailVerified: boolean
}

export interface TestOidc {
  issuer: string
  clientId: string
  clientSecret: string
  /** Known logins (the `sub`) and their claims; add users at any time. */
  users: Map<string, TestOidcUser>
  idTokens: 'normal' | 'expired' | 'foreign-key' | 'other-audience' | 'other-issuer'
  /** The client's registered callbacks; may be added to until the provider's first request. */
  redirectUris: string[]
  stop(): Promise<void>
}

export async function startOidcProvider(redirectUris: string[] = []): Promise<TestOidc> {
  let handler: ((req: never, res: never) => void) | null = null
  // the provider is built at its first request, so a test can register the app's callback once the app listens
  const server: Server = createServer((req, res) => {
    handler ??= build()
    handler(req as never, res as never)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const signing: JWK = {
    ...(await exportJWK(privateKey)),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  }
  const foreign = (await generateKeyPair('RS256')).privateKey

  const users = new Map<string, TestOidcUser>()
  const state: TestOidc = {
    issuer,
    clientId: 'tunefeed',
    clientSecret: 'tunefeed-client-secret',
    users,
    idTokens: 'normal',
    redirectUris,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  const providerKey = await importJWK(signing, 'RS256')
  const build = () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: state.clientId,
          client_secret: state.clientSecret,
          redirect_uris: state.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [signing] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      pkce: { required: () => true },
      ttl: {
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        AccessToken: 600,
        IdToken: 600,
      },
      features: { devInteractions: { enabled: true } },
      async findAccount(_ctx, sub) {
        const user = users.get(sub)
        if (!user) return undefined
        return {
          accountId: sub,
          claims: async () => ({
            sub,
            email: user.email,
            email_verified: user.emailVerified,
          }),
        }
      },
    })
    provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider:', err))
    provider.use(async (ctx, next) => {
      await next()
      const body = ctx.body as { id_token?: string } | undefined
      if (ctx.path !== '/token' || !body?.id_token || state.idTokens === 'normal') return
      const claims = decodeJwt(body.id_token)
      const now = Math.floor(Date.now() / 1000)
      const changes = {
        expired: { iat: now - 7200, exp: now - 3600 },
        'other-audience': { aud: 'another-client' },
        'other-issuer': { iss: 'http://127.0.0.1:9' },
        'foreign-key': {},
      }[state.idTokens]
      body.id_token = await new SignJWT({ ...claims, ...changes })
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .sign(state.idTokens === 'foreign-key' ? foreign : providerKey)
    })
    return provider.callback() as never
  }
  return state
}

/** A minimal cookie jar for one host. */
class Jar {
  private cookies = new Map<string, string>()
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

/**
 * Goes through the provider's own login and consent forms the way a browser
 * would, from the authorization URL the app redirected to; returns the URL the
 * provider sends the browser back to (the app's callback with code and state).
 */
export async function signInAtProvider(authorizationUrl: string, login: string, password = 'any password'): Promise<URL> {
  const jar = new Jar()
  let url = new URL(authorizationUrl)
  let init: RequestInit = {}
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as object), cookie: jar.header() },
    })
    jar.take(res)
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url)
      if (next.origin !== url.origin) return next
      url = next
      init = {}
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`provider answered ${res.status}: ${html.slice(0, 300)}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    if (!action) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`)
    const form = new URLSearchParams()
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.set(name!, value!)
    if (/name="login"/.test(html)) {
      form.set('login', login)
      form.set('password', password)
    }
    url = new URL(action.replace(/&amp;/g, '&'), url)
    init = {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }
  }
  throw new Error('too many steps at the provider')
}
