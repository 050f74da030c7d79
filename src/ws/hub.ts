import type { Server } from 'bun'

/** A listen socket as the hub knows it: whose, under which session, and how to close it. */
export interface TrackedSocket {
  userId: string
  /** The session it was opened with (null for other credentials, which end on their own terms). */
  sessionId: string | null
  close(code: number, reason: string): void
}

/** Close codes: the session ended (logout, password reset, expiry); the server is going away. */
export const CLOSE_SESSION_ENDED = 4001
export const CLOSE_GOING_AWAY = 1001

/** Who published a message: this process, or another one (through a bridge such as ./pg-bridge.ts). */
export type Origin = 'local' | 'remote'

/**
 * Topic fan-out for the `listen` sockets. Sockets subscribe with
 * `ws.raw.subscribe(topic)`; publishers call `publish`, which reaches every
 * socket on the topic through Bun's native pub/sub. Local listeners (tests,
 * metrics, a cross-process bridge) see every message too, with its origin.
 */
export class Hub {
  private server: Server<unknown> | null = null
  private listeners = new Set<(topic: string, message: unknown, origin: Origin) => void>()
  private sockets = new Set<TrackedSocket>()
  clients = 0

  /** Registers an open listen socket (its route untracks it on close). */
  track(socket: TrackedSocket) {
    this.sockets.add(socket)
  }

  untrack(socket: TrackedSocket) {
    this.sockets.delete(socket)
  }

  /**
   * Closes the sockets of one session, or of every session of one user, on
   * this process (other processes notice at their next ping, see ws/listen.ts).
   */
  closeSessions(match: { sessionId?: string; userId?: string }, code = CLOSE_SESSION_ENDED, reason = 'Session ended') {
    for (const socket of this.sockets) {
      if ((match.sessionId && socket.sessionId === match.sessionId) || (match.userId && socket.userId === match.userId)) {
        this.sockets.delete(socket)
        socket.close(code, reason)
      }
    }
  }

  /** Closes every listen socket (shutdown: 1001 Going Away, clients reconnect to another process). */
  closeAll(code = CLOSE_GOING_AWAY, reason = 'Server is shutting down') {
    for (const socket of this.sockets) socket.close(code, reason)
    this.sockets.clear()
  }

  attach(server: Server<unknown>) {
    this.server = server
  }

  /** A message from this process: to this process's sockets and every listener (a bridge forwards it). */
  publish(topic: string, message: unknown) {
    this.deliver(topic, message, 'local')
  }

  /** A message another process published (from a bridge): to this process's sockets and listeners, not forwarded again. */
  receive(topic: string, message: unknown) {
    this.deliver(topic, message, 'remote')
  }

  /** Open WebSockets on this process (every listen endpoint). */
  socketCount(): number {
    return this.server?.pendingWebSockets ?? 0
  }

  /** Returns the unsubscribe function. */
  listen(listener: (topic: string, message: unknown, origin: Origin) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private deliver(topic: string, message: unknown, origin: Origin) {
    this.server?.publish(topic, JSON.stringify(message))
    for (const listener of this.listeners) listener(topic, message, origin)
  }
}

/** Topic names: one place so publishers and sockets agree. */
export const topics = {
  musicJobs: (userId: string) => `music-jobs:${userId}`,
  channels: (userId: string) => `channels:${userId}`,
}
