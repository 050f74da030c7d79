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
const cachedLookup = <T,>(queryKey: readonly unknown[], queryFn: () => Promise<T>) =>
  queryOptions({ queryKey, queryFn, retry: false, staleTime: Infinity })

/** GET /api/music/grouping: the uploader/channel of a video link. */
export const groupingQuery = (videoUrl: string) =>
  cachedLookup(queryKeys.musicGrouping.byUrl(videoUrl), () => request(api.music.grouping.$get({ query: { video_url: videoUrl } })))

/** GET /api/music/lookup: suggestions from a link (tags, chapters, playlist entries). */
export const lookupQuery = (videoUrl: string) =>
  cachedLookup(queryKeys.musicLookup.byUrl(videoUrl), () => request(api.music.lookup.$get({ query: { video_url: videoUrl } })))

/** GET /api/music/musicbrainz: up to 5 candidate recordings for artist and title. */
export const musicbrainzQuery = (artist: string, title: string) =>
  cachedLookup(queryKeys.musicBrainz.search(artist, title), () => request(api.music.musicbrainz.$get({ query: { artist, title } })))

/** GET /api/music/artwork: a page or image URL resolved to its cover image. */
export const artworkQuery = (artworkUrl: string) =>
  cachedLookup(queryKeys.musicArtwork.byUrl(artworkUrl), () => request(api.music.artwork.$get({ query: { artwork_url: artworkUrl } })))

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
  trackNumber?: number
  year?: number
  splitChapters?: boolean
  /** SponsorBlock categories to cut, e.g. `music_offtopic`. */
  removeSegments?: string
  /** One job per entry of a playlist link. */
  playlist?: boolean
}

const flag = (v: boolean | undefined) => (v ? 'true' : undefined)
const numberField = (v: number | undefined) => (v ? String(v) : undefined)

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
              track_number: numberField(input.trackNumber),
              year: numberField(input.year),
              split_chapters: flag(input.splitChapters),
              remove_segments: input.removeSegments || undefined,
              playlist: flag(input.playlist),
            }),
          },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all }),
  })
}

export type TagEdit = Partial<Pick<MusicJob, 'title' | 'artist' | 'album' | 'grouping' | 'trackNumber' | 'year'>> & { lyrics?: string }

/** GET /api/music/jobs/{id}/lyrics: the kept lyrics' text (LRC or plain; empty for none), for the edit dialog. */
export const jobLyricsQuery = (id: string) =>
  queryOptions({
    queryKey: [...queryKeys.musicJob.detail(id), 'lyrics'] as const,
    queryFn: () => request(api.music.jobs[':id'].lyrics.$get({ param: { id } })),
    staleTime: 0,
  })

/** PATCH /api/music/jobs/{id}: new tags for a finished job; refreshes the job list. */
export function useEditTags() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, tags }: { id: string; tags: TagEdit }) => request(api.music.jobs[':id'].$patch({ param: { id }, json: tags })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all }),
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

/** POST /api/music/jobs/{id}/retry: a failed job runs again from the start; refreshes the job list. */
export function useRetryJob() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => request(api.music.jobs[':id'].retry.$post({ param: { id } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.musicJob.all }),
  })
}
