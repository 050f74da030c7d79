import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier, generateState } from 'arctic'
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import type { Env } from '../env.ts'

/**
 * One OpenID Connect provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET):
 * discovery, the authorization code flow with PKCE, state and nonce through
 * `arctic`, and the ID token checked with `jose` against the provider's JWKS
 * (signature, issuer, audience, expiry, nonce). See docs/decisions/072-oidc-sign-in.md.
 */

/** The provider's id in `/api/auth/oidc/{id}/…` (one provider, so one fixed id). */
export const OIDC_PROVIDER_ID = 'default'
const FETCH_TIMEOUT_MS = 10_000
const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

interface Discovery {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  jwks_uri: string
  userinfo_endpoint?: string
}

/** What a sign-in proved: the provider's subject and its e-mail claim. */
export interface OidcIdentity {
  subject: string
  email: string | null
  emailVerified: boolean
}

/** The secrets one authorization request needs back at the callback. */
export interface OidcAttempt {
  state: string
  codeVerifier: string
  nonce: string
}

/** Why a sign-in failed: `unavailable` (provider unreachable) or `failed` (bad answer, bad ID token). */
export class OidcError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'failed',
    message: string,
  ) {
    super(message)
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

export class OidcClient {
  private discovery: Promise<Discovery> | null = null
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null

  constructor(
    readonly issuer: string,
    readonly clientId: string,
    private clientSecret: string | null,
    readonly name: string,
  ) {}

  static fromEnv(env: Env): OidcClient | null {
    if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID) return null
    return new OidcClient(env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET ?? null, env.OIDC_NAME)
  }

  /** The provider's metadata, fetched once (again after a failure). */
  private async config(): Promise<Discovery> {
    this.discovery ??= (async () => {
      const url = `${trimSlash(this.issuer)}/.well-known/openid-configuration`
      let res: Response
      try {
        res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' })
      } catch (err) {
        throw new OidcError('unavailable', `discovery: ${err instanceof Error ? err.message : err}`)
      }
      if (!res.ok) throw new OidcError('unavailable', `discovery: HTTP ${res.status}`)
      const meta = (await res.json().catch(() => null)) as Partial<Discovery> | null
      if (!meta?.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri || !meta.issuer) {
        throw new OidcError('failed', 'discovery: missing endpoints')
      }
      if (trimSlash(meta.issuer) !== trimSlash(this.issuer)) throw new OidcError('failed', `discovery: issuer is ${meta.issuer}`)
      this.jwks = createRemoteJWKSet(new URL(meta.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS })
      return meta as Discovery
    })()
    return this.discovery.catch((err) => {
      this.discovery = null
      throw err
    })
  }

  private oauth(redirectUri: string) {
    return new OAuth2Client(this.clientId, this.clientSecret, redirectUri)
  }

  /** A new attempt and the provider URL to send the browser to. */
  async start(redirectUri: string): Promise<{ attempt: OidcAttempt; url: URL }> {
    const meta = await this.config()
    const attempt = { state: generateState(), codeVerifier: generateCodeVerifier(), nonce: generateState() }
    const url = this.oauth(redirectUri).createAuthorizationURLWithPKCE(
      meta.authorization_endpoint,
      attempt.state,
      CodeChallengeMethod.S256,
      attempt.codeVerifier,
      ['openid', 'email'],
    )
    url.searchParams.set('nonce', attempt.nonce)
    return { attempt, url }
  }

  /** Exchanges the code (with the PKCE verifier) and verifies the ID token; the identity it proves. */
  async finish(redirectUri: string, code: string, attempt: OidcAttempt): Promise<OidcIdentity> {
    const meta = await this.config()
    let idToken: string
    let accessToken: string | null = null
    try {
      const tokens = await this.oauth(redirectUri).validateAuthorizationCode(meta.token_endpoint, code, attempt.codeVerifier)
      idToken = tokens.idToken()
      if ('access_token' in tokens.data) accessToken = tokens.accessToken()
    } catch (err) {
      throw new OidcError('failed', `token exchange: ${err instanceof Error ? err.message : err}`)
    }
    let claims: JWTPayload
    try {
      ;({ payload: claims } = await jwtVerify(idToken, this.jwks!, {
        issuer: meta.issuer,
        audience: this.clientId,
        algorithms: SIGNING_ALGORITHMS,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: 30,
      }))
    } catch (err) {
      throw new OidcError('failed', `ID token: ${err instanceof Error ? err.message : err}`)
    }
    if (claims.nonce !== attempt.nonce) throw new OidcError('failed', 'ID token: nonce does not match')
    if (claims.azp !== undefined && claims.azp !== this.clientId) throw new OidcError('failed', 'ID token: azp is another client')
    // many providers put the e-mail only in the userinfo answer
    if (claims.email === undefined && accessToken && meta.userinfo_endpoint) {
      claims = { ...claims, ...(await this.userinfo(meta.userinfo_endpoint, accessToken, claims.sub!)) }
    }
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null
    return { subject: claims.sub!, email, emailVerified: claims.email_verified === true || claims.email_verified === 'true' }
  }

  private async userinfo(endpoint: string, accessToken: string, subject: string): Promise<JWTPayload> {
    try {
      const res = await fetch(endpoint, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        redirect: 'error',
      })
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      const info = (await res.json()) as JWTPayload
      // OpenID Connect Core 5.3.2: the userinfo `sub` must be the ID token's
      if (info.sub !== subject) throw new Error('sub differs from the ID token')
      return { email: info.email, email_verified: info.email_verified }
    } catch (err) {
      throw new OidcError('failed', `userinfo: ${err instanceof Error ? err.message : err}`)
    }
  }
}
