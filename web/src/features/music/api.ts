import { keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { MusicJob, MusicTags } from '#server/music/schema.ts'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import { JOBS_PER_PAGE } from './form.ts'

export type { MusicJob, MusicTags }

/** Uploads may take longer than the client's 30 s default timeout: no timeout for them. */
const uploadFetch = ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, credentials: 'same-origin' })) as typeof fetch

/** GET /api/music/jobs/list: one page of the user's jobs, newest first (docs/product.md#constants: 5 per page). */
export const jobListQuery = (page: number, perPage = JOBS_PER_PAGE) =>
  queryOptions({
    queryKey: queryKeys.musicJob.list(page, perPage),
    queryFn: () => request(api.music.jobs.list.$get({ query: { page: String(page), per_page: String(perPage) } })),
    placeholderData: keepPreviousData,
  })

/** A look-up whose answer for one input does not change: asked once, not retried. */
const lookupQuery = <T,>(queryKey: readonly unknown[], queryFn: () => Promise<T>) =>
  queryOptions({ queryKey, queryFn, retry: false, staleTime: Infinity })

/** GET /api/music/grouping: the uploader/channel of a video link. */
export const groupingQuery = (videoUrl: string) =>
  lookupQuery(queryKeys.musicGrouping.byUrl(videoUrl), () => request(api.music.grouping.$get({ query: { video_url: videoUrl } })))

/** GET /api/music/artwork: a page or image URL resolved to its cover image. */
export const artworkQuery = (artworkUrl: string) =>
  lookupQuery(queryKeys.musicArtwork.byUrl(artworkUrl), () => request(api.music.artwork.$get({ query: { artwork_url: artworkUrl } })))

const multipart = (fields: Record<string, string | File | undefined>) => {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, value)
  return form
}

/** POST /api/music/tags: the tags of an audio file (all null when it has none). */
export function useReadTags() {
  return useMutation({
    mutationKey: queryKeys.musicTags.all,
    mutationFn: (file: File) =>
      request(api.music.tags.$post(undefined, { fetch: uploadFetch, init: { body: multipart({ file }) } })) as Promise<MusicTags>,
  })
}

export interface CreateJobInput {
  file?: File
  videoUrl?: string
  artworkUrl?: string
  title: string
  artist: string
  album: string
  grouping?: string
}

/** POST /api/music/jobs/create (multipart); refreshes the job list. */
export function useCreateJob() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: CreateJobInput) =>
      request(
        api.music.jobs.create.$post(undefined, {
          fetch: uploadFetch,
          init: {
            body: multipart({
              file: input.file,
              video_url: input.videoUrl,
              artwork_url: input.artworkUrl || undefined,
              title: input.title,
              artist: input.artist,
              album: input.album,
              grouping: input.grouping || undefined,
            }),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all }),
  })
}

/** DELETE /api/music/jobs/{id}/delete; refreshes the job list. */
export function useDeleteJob() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => request(api.music.jobs[':id'].delete.$delete({ param: { id } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all }),
  })
}
