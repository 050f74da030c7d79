import type { Server } from 'bun'

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
  clients = 0

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
