import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'

/**
 * An S3-compatible store on loopback for tests: the npm `s3rver` (the S3 REST
 * API, multipart uploads, ranges) behind a small proxy of ours that checks
 * every request's AWS Signature Version 4 (the Authorization header, or a
 * presigned URL's query) against the known secret, because s3rver itself only
 * checks that the access key exists. A client that signs wrongly gets 403
 * `SignatureDoesNotMatch`, as from a real store.
 *
 * `stop()` closes the proxy (the store is then unreachable: connection
 * refused) and `start()` opens it again on the same port; `refuse(code)` makes
 * it answer every request with that 4xx/5xx until `refuse(null)`.
 */
export interface TestS3 {
  /** http://127.0.0.1:<port> (the signature-checking proxy). */
  endpoint: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** The env names the app reads for this store (STORAGE=s3 and every S3_* name). */
  env(extra?: Record<string, string>): Record<string, string>
  /** Requests the proxy refused for a bad signature (a test can assert none). */
  badSignatures: number
  /** Requests that reached s3rver. */
  forwarded: number
  /** Each request that reached s3rver: method, raw path (bucket and key, URL-encoded) and query. */
  requests: { method: string; path: string; search: string }[]
  start(): Promise<void>
  stop(): Promise<void>
  /** Every request answered with this status (e.g. 503 or 403) until `refuse(null)`. */
  refuse(status: number | null): void
  /** Closes the proxy and s3rver, and removes the store's folder. */
  close(): Promise<void>
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest()

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept). */
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

function canonicalQuery(search: string, drop?: string): string {
  if (!search) return ''
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=')
      const k = decodeURIComponent((i < 0 ? pair : pair.slice(0, i)).replace(/\+/g, '%20'))
      const v = i < 0 ? '' : decodeURIComponent(pair.slice(i + 1).replace(/\+/g, '%20'))
      return [k, v] as const
    })
    .filter(([k]) => k !== drop)
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&')
}

/** Null when the request is signed with `secret`, else why not. */
export function checkSigV4(req: Request, rawPath: string, rawSearch: string, secret: string, now = Date.now()): string | null {
  const auth = req.headers.get('authorization')
  const q = new URLSearchParams(rawSearch)
  let credential: string
  let signedHeaders: string
  let signature: string
  let amzDate: string
  let payloadHash: string
  let query: string
  if (auth) {
    const m = /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(auth.trim())
    if (!m) return 'malformed Authorization'
    ;[, credential, signedHeaders, signature] = m as unknown as [string, string, string, string]
    amzDate = req.headers.get('x-amz-date') ?? ''
    payloadHash = req.headers.get('x-amz-content-sha256') ?? ''
    if (!payloadHash) return 'no x-amz-content-sha256'
    query = canonicalQuery(rawSearch)
  } else if (q.get('X-Amz-Signature')) {
    if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return 'bad X-Amz-Algorithm'
    credential = q.get('X-Amz-Credential') ?? ''
    signedHeaders = q.get('X-Amz-SignedHeaders') ?? ''
    signature = q.get('X-Amz-Signature') ?? ''
    amzDate = q.get('X-Amz-Date') ?? ''
    payloadHash = 'UNSIGNED-PAYLOAD'
    const expires = Number(q.get('X-Amz-Expires'))
    const at = Date.parse(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'))
    if (!Number.isFinite(expires) || !Number.isFinite(at) || now > at + expires * 1000) return 'presigned URL expired'
    query = canonicalQuery(rawSearch, 'X-Amz-Signature')
  } else {
    return 'unsigned request'
  }
  const [, date, region, service, term] = credential.split('/')
  if (!date || !region || service !== 's3' || term !== 'aws4_request') return 'bad credential scope'
  const headers = signedHeaders
    .split(';')
    .map((name) => `${name}:${(req.headers.get(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('')
  const canonical = [req.method, rawPath, query, headers, signedHeaders, payloadHash].join('\n')
  const scope = `${date}/${region}/s3/aws4_request`
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n')
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 's3'), 'aws4_request')
  const expected = createHmac('sha256', key).update(toSign).digest()
  const given = Buffer.from(signature, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature does not match'
  return null
}

const s3Error = (status: number, code: string, message: string) =>
  new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`, {
    status,
    headers: { 'Content-Type': 'application/xml' },
  })

export async function startTestS3(opts: { bucket?: string } = {}): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-s3-'))
  const bucket = opts.bucket ?? `tunefeed-${Math.random().toString(36).slice(2, 10)}`
  const accessKeyId = 'S3RVER'
  const secretAccessKey = 'S3RVER'
  const backend = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] })
  const { port: backendPort } = (await backend.run()) as { port: number }
  const backendUrl = `http://127.0.0.1:${backendPort}`

  let refused: number | null = null
  let server: ReturnType<typeof Bun.serve> | null = null
  let port = 0
  const s3: TestS3 = {
    endpoint: '',
    bucket,
    region: 'us-east-1',
    accessKeyId,
    secretAccessKey,
    badSignatures: 0,
    forwarded: 0,
    requests: [],
    env: (extra = {}) => ({
      STORAGE: 's3',
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: bucket,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      ...extra,
    }),
    async start() {
      server = Bun.serve({
        port,
        hostname: '127.0.0.1',
        idleTimeout: 30,
        async fetch(req) {
          if (refused) return s3Error(refused, refused >= 500 ? 'ServiceUnavailable' : 'AccessDenied', 'Refused by the test.')
          const raw = req.url.slice(req.url.indexOf('/', req.url.indexOf('//') + 2))
          const qi = raw.indexOf('?')
          const rawPath = qi < 0 ? raw : raw.slice(0, qi)
          const rawSearch = qi < 0 ? '' : raw.slice(qi + 1)
          const why = checkSigV4(req, rawPath, rawSearch, secretAccessKey)
          if (why) {
            s3.badSignatures++
            return s3Error(403, 'SignatureDoesNotMatch', why)
          }
          const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(await req.arrayBuffer())
          const claimed = req.headers.get('x-amz-content-sha256')
          if (body && claimed && /^[0-9a-f]{64}$/.test(claimed) && sha256(body) !== claimed) {
            s3.badSignatures++
            return s3Error(400, 'XAmzContentSHA256Mismatch', 'payload hash does not match')
          }
          const headers = new Headers(req.headers)
          headers.delete('host')
          s3.forwarded++
          if (s3.requests.length < 100_000) s3.requests.push({ method: req.method, path: rawPath, search: rawSearch })
          const res = await fetch(backendUrl + raw, { method: req.method, headers, body, redirect: 'manual', decompress: false })
          const out = new Headers(res.headers)
          out.delete('content-encoding')
          out.delete('transfer-encoding')
          return new Response(req.method === 'HEAD' ? null : res.body, { status: res.status, headers: out })
        },
      })
      port = server.port ?? 0
      s3.endpoint = `http://127.0.0.1:${port}`
    },
    async stop() {
      await server?.stop(true)
      server = null
    },
    refuse(status) {
      refused = status
    },
    async close() {
      await s3.stop()
      await backend.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  await s3.start()
  return s3
}
