import { expect } from 'bun:test'

/** One Set-Cookie header split into its name, value and attributes (keys lower-cased). */
export interface SetCookie {
  name: string
  value: string
  attrs: Record<string, string | true>
}

export function setCookies(res: Response): SetCookie[] {
  return res.headers.getSetCookie().map((line) => {
    const [pair, ...rest] = line.split(';')
    const eq = pair!.indexOf('=')
    const attrs: Record<string, string | true> = {}
    for (const attr of rest) {
      const [k, ...v] = attr.trim().split('=')
      if (k) attrs[k.toLowerCase()] = v.length ? v.join('=') : true
    }
    return { name: pair!.slice(0, eq).trim(), value: pair!.slice(eq + 1).trim(), attrs }
  })
}

/** The Set-Cookie for `name`, or undefined. */
export function setCookie(res: Response, name: string): SetCookie | undefined {
  return setCookies(res).find((c) => c.name === name)
}

/** Asserts a `{detail}` JSON error with this status (and detail, when given); returns the detail. */
export async function expectError(res: Response | Promise<Response>, status: number, detail?: string | RegExp): Promise<string> {
  const r = await res
  const text = await r.text()
  expect({ status: r.status, body: text }).toMatchObject({ status })
  expect(r.headers.get('content-type') ?? '').toContain('application/json')
  const body = JSON.parse(text) as { detail: unknown }
  expect(Object.keys(body)).toEqual(['detail'])
  expect(typeof body.detail).toBe('string')
  if (typeof detail === 'string') expect(body.detail).toBe(detail)
  else if (detail) expect(body.detail as string).toMatch(detail)
  return body.detail as string
}
