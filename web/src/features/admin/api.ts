import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** The admin page's data (docs/api.md, Admin). Every mutation refreshes everything under the Admin tag. */

export const USERS_PER_PAGE = 20
/** Status, jobs and schedules change by themselves (the worker runs): re-read them while shown. */
const LIVE_MS = 5_000

export const statusQuery = queryOptions({
  queryKey: queryKeys.admin.status(),
  queryFn: () => request(api.admin.status.$get()),
  refetchInterval: LIVE_MS,
})

export const usersQuery = (page: number, q: string) =>
  queryOptions({
    queryKey: queryKeys.admin.users({ page, q }),
    queryFn: () => request(api.admin.users.$get({ query: { page: String(page), per_page: String(USERS_PER_PAGE), ...(q ? { q } : {}) } })),
    placeholderData: (previous) => previous,
  })

export const jobsQuery = queryOptions({
  queryKey: queryKeys.admin.jobs(),
  queryFn: () => request(api.admin.jobs.$get()),
  refetchInterval: LIVE_MS,
})

export const schedulesQuery = queryOptions({
  queryKey: queryKeys.admin.schedules(),
  queryFn: () => request(api.admin.schedules.$get()),
  refetchInterval: LIVE_MS,
})

export const mailQuery = queryOptions({
  queryKey: queryKeys.admin.mail(),
  queryFn: () => request(api.admin.mail.$get()),
  // the outbox changes by itself (the mail job retries): re-read it while shown
  refetchInterval: LIVE_MS,
})

function useAdminMutation<V, R>(mutationFn: (vars: V) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.admin.all }) })
}

export const usePatchUser = () =>
  useAdminMutation(({ id, ...json }: { id: string; admin?: boolean; disabled?: boolean; keepQuotaMb?: number | null }) =>
    request(api.admin.users[':id'].$patch({ param: { id }, json })),
  )
export const useDeleteUser = () => useAdminMutation((id: string) => request(api.admin.users[':id'].$delete({ param: { id } })))
export const useRetryJob = () => useAdminMutation((id: string) => request(api.admin.jobs[':id'].retry.$post({ param: { id } })))
export const useDeleteJob = () => useAdminMutation((id: string) => request(api.admin.jobs[':id'].$delete({ param: { id } })))
export const useRunSchedule = () =>
  useAdminMutation((name: string) => request(api.admin.schedules[':name'].run.$post({ param: { name } })))
export const useTestMail = () => useMutation({ mutationFn: () => request(api.admin.mail.test.$post()) })

// the tools part (docs/api.md, Admin status and tools): the managed yt-dlp and the cookies handed to it
export const useUpdateYtdlp = () => useAdminMutation(() => request(api.admin.tools.ytdlp.update.$post()))
export const useRollbackYtdlp = () => useAdminMutation(() => request(api.admin.tools.ytdlp.rollback.$post()))
export const useRunCanary = () => useAdminMutation(() => request(api.admin.tools.canary.$post()))
export const useSetCookies = () =>
  useAdminMutation((text: string) =>
    request(api.admin.tools.cookies.$put(undefined, { init: { body: text, headers: { 'content-type': 'text/plain' } } })),
  )
export const useRemoveCookies = () => useAdminMutation(() => request(api.admin.tools.cookies.$delete()))
