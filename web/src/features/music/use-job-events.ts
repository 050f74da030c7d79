import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { MusicJobEvent } from '#server/music/schema.ts'
import { invalidateFresh } from '~/lib/invalidate-fresh.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import type { MusicJob } from './api.ts'

type JobList = { jobs: MusicJob[]; totalPages: number }

/** Reconnect delays: 1 s doubling to 30 s, with jitter so many tabs do not reconnect together. */
export const RECONNECT_MIN_MS = 1_000
export const RECONNECT_MAX_MS = 30_000
/** The server pings every 30 s; a socket silent for longer than this is treated as dead. */
export const SILENCE_LIMIT_MS = 75_000

export function reconnectDelay(attempt: number, random = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempt)
  return Math.round(base / 2 + (random() * base) / 2)
}

const listKey = ['MusicJob', 'list'] as const

/**
 * docs/product.md#live-updates, the live socket for music jobs: STARTED refreshes the whole list,
 * COMPLETED refreshes the job (the list pages that hold it), PROGRESS updates
 * its progress in the cache, PING is ignored.
 */
export function applyJobEvent(queryClient: QueryClient, event: MusicJobEvent) {
  switch (event.status) {
    case 'STARTED':
      void queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all })
      return
    case 'COMPLETED':
      // the pages holding the job, and any page being fetched right now: its answer may
      // predate the completion (a short job can end while the list asked after STARTED is on its way)
      void invalidateFresh(queryClient, {
        queryKey: listKey,
        predicate: (q) =>
          q.state.fetchStatus === 'fetching' || ((q.state.data as JobList | undefined)?.jobs.some((j) => j.id === event.id) ?? false),
      })
      void queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.detail(event.id) })
      return
    case 'PROGRESS':
      queryClient.setQueriesData<JobList>({ queryKey: listKey }, (old) => {
        if (!old?.jobs.some((j) => j.id === event.id)) return old
        return { ...old, jobs: old.jobs.map((j) => (j.id === event.id && !j.completed && !j.failed ? { ...j, progress: event.progress } : j)) }
      })
      return
    case 'PING':
      return
  }
}

function parseEvent(data: unknown): MusicJobEvent | null {
  if (typeof data !== 'string') return null
  try {
    const event = JSON.parse(data) as MusicJobEvent
    if (event.status === 'PING') return event
    if (typeof event.id !== 'string') return null
    if (event.status === 'STARTED' || event.status === 'COMPLETED') return event
    if (event.status === 'PROGRESS' && typeof event.progress === 'number') return event
  } catch {
    // not ours
  }
  return null
}

export type SocketState = 'connecting' | 'live' | 'reconnecting'

/**
 * Keeps the music job cache live over WebSocket /api/music/jobs/listen while
 * mounted: reconnects with backoff, re-fetches the list after a reconnect
 * (events may have been missed), and reconnects at once when the browser
 * comes back online. Returns the connection state for display.
 */
export function useMusicJobEvents(): SocketState {
  const queryClient = useQueryClient()
  const [state, setState] = useState<SocketState>('connecting')

  useEffect(() => {
    let socket: WebSocket | null = null
    let attempt = 0
    let everOpen = false
    let stopped = false
    let retryTimer: ReturnType<typeof setTimeout> | undefined
    let silenceTimer: ReturnType<typeof setTimeout> | undefined

    const url = new URL('/api/music/jobs/listen', window.location.href)
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'

    const heardFrom = () => {
      clearTimeout(silenceTimer)
      silenceTimer = setTimeout(() => socket?.close(), SILENCE_LIMIT_MS)
    }

    const connect = () => {
      clearTimeout(retryTimer)
      if (stopped) return
      const ws = new WebSocket(url)
      socket = ws
      ws.onopen = () => {
        attempt = 0
        setState('live')
        heardFrom()
        if (everOpen) void queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all })
        everOpen = true
      }
      ws.onmessage = (message) => {
        heardFrom()
        const event = parseEvent(message.data)
        if (event) applyJobEvent(queryClient, event)
      }
      ws.onclose = () => {
        clearTimeout(silenceTimer)
        if (socket !== ws || stopped) return
        socket = null
        setState('reconnecting')
        retryTimer = setTimeout(connect, reconnectDelay(attempt++))
      }
      ws.onerror = () => ws.close()
    }

    const online = () => {
      if (!socket) {
        attempt = 0
        connect()
      }
    }

    connect()
    window.addEventListener('online', online)
    return () => {
      stopped = true
      window.removeEventListener('online', online)
      clearTimeout(retryTimer)
      clearTimeout(silenceTimer)
      socket?.close()
      socket = null
    }
  }, [queryClient])

  return state
}
