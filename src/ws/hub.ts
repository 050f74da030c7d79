import type { Server } from 'bun'

/**
 * Topic fan-out for the `listen` sockets. Sockets subscribe with
 * `ws.raw.subscribe(topic)`; publishers call `publish`, which reaches every
 * socket on the topic through Bun's native pub/sub. Local listeners (tests,
 * metrics, a cross-process bridge) see every message too.
 */
export class Hub {
  private server: Server<unknown> | null = null
  private listeners = new Set<(topic: string, message: unknown) => void>()
  clients = 0

  attach(server: Server<unknown>) {
    this.server = server
  }

  publish(topic: string, message: unknown) {
    const text = JSON.stringify(message)
    this.server?.publish(topic, text)
    for (const listener of this.listeners) listener(topic, message)
  }

  /** Returns the unsubscribe function. */
  listen(listener: (topic: string, message: unknown) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

/** Topic names: one place so publishers and sockets agree. */
export const topics = {
  musicJobs: (userId: string) => `music-jobs:${userId}`,
  channels: (userId: string) => `channels:${userId}`,
}
