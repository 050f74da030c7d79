import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { SponsorblockAction, SponsorblockCategory } from '#server/youtube/listen/schema.ts'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

// SponsorBlock (docs/api.md "Listening"): the user's category actions (Account page) and a
// video's segments with those actions (the player). Shared by the player and the Account page.

export type SponsorblockSettings = Record<SponsorblockCategory, SponsorblockAction>

export const sponsorblockQuery = queryOptions({
  queryKey: queryKeys.youtubeSponsorblock.settings(),
  queryFn: () => request(api.youtube.sponsorblock.$get()),
  staleTime: 5 * 60_000,
})

/** A video's segments; the server looks them up by hash prefix and caches them (`unavailable`: SponsorBlock could not be reached). */
export const segmentsQuery = (id: string) =>
  queryOptions({
    queryKey: queryKeys.youtubeSponsorblock.segments(id),
    queryFn: () => request(api.youtube.videos[':id'].segments.$get({ param: { id } })),
    staleTime: 5 * 60_000,
    retry: false,
  })

/** Saves the actions; every video's segments are asked again (their actions follow the settings). */
export function useSaveSponsorblock() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (categories: Partial<SponsorblockSettings>) => request(api.youtube.sponsorblock.$put({ json: { categories } })),
    onSuccess: (data) => {
      queryClient.setQueryData(queryKeys.youtubeSponsorblock.settings(), data)
      return queryClient.invalidateQueries({ queryKey: queryKeys.youtubeSponsorblock.all })
    },
  })
}
