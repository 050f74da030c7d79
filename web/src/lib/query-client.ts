import { QueryClient } from '@tanstack/react-query'
import { ApiError } from './api.ts'

/** docs/product.md#cached-data: re-fetch on mount when older than 60 s, keep unused data 60 s, re-fetch after reconnecting. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 60_000,
      gcTime: 60_000,
      refetchOnMount: true, // only when stale
      refetchOnReconnect: true,
      refetchOnWindowFocus: false,
      // a 4xx will not change by asking again; network trouble might
      retry: (count, err) => !(err instanceof ApiError && typeof err.kind === 'number' && err.kind < 500) && count < 2,
    },
    mutations: { retry: false },
  },
})
