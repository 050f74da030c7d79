import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { client } from '~/lib/api.ts'

/**
 * The channel socket, /api/youtube/channel/listen (docs/product.md#live-updates): one shared by
 * every part of the page that listens (the feed and channel pages for refreshes, the player for
 * listen mode's audio: docs/decisions/310), open while at least one does. What a message means
 * is up to its handlers, registered once by the modules that understand it.
 */
type MessageHandler = (queryClient: QueryClient, message: unknown) => void
/** The socket opened: `reconnected` after an earlier one closed (what it would have said is lost). */
type OpenHandler = (queryClient: QueryClient, reconnected: boolean) => void

const MAX_RETRY_MS = 30_000
const messageHandlers = new Set<MessageHandler>()
const openHandlers = new Set<OpenHandler>()

let users = 0
let socket: WebSocket | null = null
let retryTimer: ReturnType<typeof setTimeout> | undefined
let retryMs = 1000
let everOpened = false

/** Registers what to do with each message (module level: once per module). */
export function onChannelMessage(handler: MessageHandler) {
  messageHandlers.add(handler)
}

/** Registers what to do when the socket opens (module level: once per module). */
export function onChannelOpen(handler: OpenHandler) {
  openHandlers.add(handler)
}

/** Whether the socket is open now (the player polls more slowly while it is). */
export function channelSocketOpen(): boolean {
  return socket?.readyState === WebSocket.OPEN
}

function connect(queryClient: QueryClient) {
  const ws = client.api.youtube.channel.listen.$ws()
  socket = ws
  ws.onopen = () => {
    retryMs = 1000
    const reconnected = everOpened
    everOpened = true
    for (const handler of openHandlers) handler(queryClient, reconnected)
  }
  ws.onmessage = (event) => {
    let message: unknown
    try {
      message = JSON.parse(String(event.data))
    } catch {
      // not JSON: nothing to do
      return
    }
    for (const handler of messageHandlers) handler(queryClient, message)
  }
  ws.onclose = () => {
    if (socket !== ws) return
    socket = null
    if (users > 0) {
      retryTimer = setTimeout(() => users > 0 && !socket && connect(queryClient), retryMs)
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
    }
  }
}

/** Keeps the socket open while the calling component is mounted (and `enabled`). */
export function useChannelSocket(enabled = true) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!enabled) return
    users += 1
    clearTimeout(retryTimer)
    if (!socket) connect(queryClient)
    return () => {
      users -= 1
      if (users > 0) return
      // a page change unmounts one listener just before the next mounts: close a little later
      retryTimer = setTimeout(() => {
        if (users > 0 || !socket) return
        const ws = socket
        socket = null
        ws.close()
      }, 1000)
    }
  }, [queryClient, enabled])
}
