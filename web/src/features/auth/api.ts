import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

export function useLogin() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { email: string; password: string }) => request(api.auth.login.$post({ json })),
    onSuccess: async (user) => {
      // docs/product.md#session: logging in refreshes all cached data of every type
      await queryClient.invalidateQueries()
      queryClient.setQueryData(queryKeys.user.session(), user)
    },
  })
}

export function useCreateAccount() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { email: string; password: string }) => request(api.auth.create.$post({ json })),
    onSuccess: () => queryClient.invalidateQueries(),
  })
}

export function useSendReset() {
  return useMutation({
    mutationFn: (json: { email: string }) => request(api.auth.sendreset.$post({ json })),
  })
}

export function useResetPassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (json: { token: string; password: string }) => request(api.auth.reset.$post({ json })),
    // the server revokes every session of the account
    onSuccess: () => queryClient.removeQueries({ queryKey: queryKeys.user.all }),
  })
}

/**
 * Verifies the e-mail token. A query, not a mutation, so the one request is
 * shared by React's double mount in development; the token is single use.
 */
export const verifyAccountQuery = (token: string) =>
  queryOptions({
    queryKey: ['Verify', token] as const,
    queryFn: () => request(api.auth.verify.$get({ query: { token } })),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    retry: false,
    refetchOnReconnect: false,
  })
