import type { Result, Router } from 'hono/router'
import { TrieRouter } from 'hono/router/trie-router'

/** At most this many remembered matches; when full the memory starts over (unknown paths cannot grow it). */
const MAX_MEMO = 1000

/**
 * Hono's TrieRouter with the answers for paths without parameters remembered
 * (`GET /api/auth/session`, lists, static files). Hono's faster RegExpRouter
 * cannot take a parameter beside a fixed name at the same place
 * (`/jobs/list` beside `/jobs/:id/download`), so Hono fell back to the
 * TrieRouter, whose search was the largest single cost of a session check.
 * A remembered result holds no parameters, so sharing it between requests is
 * safe. See docs/decisions/086-session-route-and-first-answer.md.
 */
export class MemoTrieRouter<T> implements Router<T> {
  name = 'MemoTrieRouter'
  #trie = new TrieRouter<T>()
  /** method -> path -> result: no key is built per request (a joined string cost more than the look-up) */
  #memo = new Map<string, Map<string, Result<T>>>()
  #size = 0

  add(method: string, path: string, handler: T) {
    this.#forget()
    this.#trie.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    const known = this.#memo.get(method)?.get(path)
    if (known) return known
    const result = this.#trie.match(method, path)
    // TrieRouter's result: [[handler, params], ...] in one element
    const handlers = result[0] as [T, Record<string, string>][]
    if (handlers.every(([, params]) => Object.keys(params).length === 0)) {
      if (this.#size >= MAX_MEMO) this.#forget()
      let paths = this.#memo.get(method)
      if (!paths) this.#memo.set(method, (paths = new Map()))
      paths.set(path, result)
      this.#size++
    }
    return result
  }

  #forget() {
    this.#memo.clear()
    this.#size = 0
  }
}
