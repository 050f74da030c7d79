import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { api, isStatus, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** The linked WebDAV account, or null when there is none (404). */
export const webdavQuery = queryOptions({
  queryKey: queryKeys.webDav.account(),
  queryFn: async () => {
    try {
      return await request(api.webdav.$get())
    } catch (err) {
      if (isStatus(err, 404)) return null
      throw err
    }
  },
})

export function useSaveWebdav() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { username: string; password: string; url: string }) => request(api.webdav.$post({ json })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webDav.all }),
  })
}

export function useDeleteWebdav() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => request(api.webdav.$delete()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webDav.all }),
  })
}

/** Logs out, leaves the signed-in area, then drops every cached query (not when the call fails). */
export function useLogout() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return useMutation({
    mutationFn: () => request(api.auth.logout.$delete()),
    onSuccess: async () => {
      // navigate first: clearing while protected pages are mounted would make them refetch
      await navigate({ to: '/login', replace: true })
      queryClient.clear()
    },
  })
}

/** The user's API tokens (never the tokens themselves: only the server's hash is kept). */
export const apiTokensQuery = queryOptions({
  queryKey: queryKeys.apiToken.list(),
  queryFn: () => request(api.auth.tokens.$get()),
})

export function useCreateApiToken() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { name: string; expiresAt?: string | null }) => request(api.auth.tokens.$post({ json })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiToken.all }),
  })
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => request(api.auth.tokens[':id'].$delete({ param: { id } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiToken.all }),
  })
}

/** Changes the password; the server keeps this session and ends the others, and revokes the API tokens unless `keepTokens`. */
export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { currentPassword: string; password: string; keepTokens?: boolean }) => request(api.auth.password.$put({ json })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiToken.all }),
  })
}

/** The configured identity providers: the login page's query (same key, one cache entry; features do not import each other). */
export const providersQuery = queryOptions({
  queryKey: queryKeys.authProvider.all,
  queryFn: () => request(api.auth.providers.$get()),
  staleTime: Number.POSITIVE_INFINITY,
})

/** Identity-provider accounts linked to this account (docs/api.md, Sign-in providers). */
export const identitiesQuery = queryOptions({
  queryKey: queryKeys.authProvider.identities(),
  queryFn: () => request(api.auth.identities.$get()),
})

/** Unlinks a sign-in provider from the account (DELETE /api/auth/identities/{provider}). */
export function useUnlinkIdentity() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (provider: string) => request(api.auth.identities[':provider'].$delete({ param: { provider } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.authProvider.identities() }),
  })
}

/** Deletes the account and everything in it, then leaves for the login page and drops every cached query. */
export function useDeleteAccount() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  return useMutation({
    mutationFn: (json: { password: string }) => request(api.auth.account.$delete({ json })),
    onSuccess: async () => {
      await navigate({ to: '/login', replace: true })
      queryClient.clear()
    },
  })
}

/** Account → Notifications (docs/api.md, Account). */
export const notificationsQuery = queryOptions({
  queryKey: queryKeys.notifications.all,
  queryFn: () => request(api.notifications.$get()),
})

export function useSaveNotifications() {
  const queryClient = useQueryClient()
  return useMutation({
    // a URL left out, or sent back masked as GET shows it, keeps the stored one
    mutationFn: (json: { ntfyUrl?: string | null; webhookUrl?: string | null; onJobFinished: boolean; onJobFailed: boolean; onNewVideos: boolean }) =>
      request(api.notifications.$put({ json })),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.notifications.all, saved),
  })
}

export const useTestNotification = () => useMutation({ mutationFn: () => request(api.notifications.test.$post()) })

/** Account → Music Players: the username players sign in with and whether an app password exists. */
export const musicPlayersQuery = queryOptions({
  queryKey: queryKeys.musicPlayers.all,
  queryFn: () => request(api.auth.subsonic.$get()),
})

/** Makes a new app password (the previous one stops working); the answer carries it this once. */
export function useCreateAppPassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => request(api.auth.subsonic.$post()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicPlayers.all }),
  })
}

export function useDeleteAppPassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => request(api.auth.subsonic.$delete()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicPlayers.all }),
  })
}
