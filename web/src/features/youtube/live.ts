import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { client } from '~/lib/api.ts'
import { applyChannelMessage, catchUp, type ChannelMessage } from './channel-message.ts'

const MAX_RETRY_MS = 30_000

/** One socket shared by every page that listens, opened while at least one does. */
let users = 0
let socket: WebSocket | null = null
let retryTimer: ReturnType<typeof setTimeout> | undefined
let retryMs = 1000
let everOpened = false

function connect(queryClient: QueryClient) {
  const ws = client.api.youtube.channel.listen.$ws()
  socket = ws
  ws.onopen = () => {
    retryMs = 1000
    catchUp(queryClient, everOpened)
    everOpened = true
  }
  ws.onmessage = (event) => {
    try {
      applyChannelMessage(queryClient, JSON.parse(String(event.data)) as ChannelMessage)
    } catch {
      // not JSON: nothing to do
    }
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

/** Listens to channel refreshes while the calling component is mounted. */
export function useChannelListen() {
  const queryClient = useQueryClient()
  useEffect(() => {
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
  }, [queryClient])
}
