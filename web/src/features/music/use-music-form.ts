import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react'
import { notify } from '~/components/ui/toaster.tsx'
import { lookupFailure } from '#server/music/schema.ts'
import { ApiError, errorText } from '~/lib/api.ts'
import { albumFromTitle } from './album.ts'
import { artworkQuery, type CreateJobInput, groupingQuery, lookupQuery, musicbrainzQuery, type MusicTags, useCreateJob, useReadTags } from './api.ts'
import {
  afterJobCreated,
  classifyArtwork,
  emptyMusicForm,
  INPUT_DEBOUNCE_MS,
  FILE_CONTENT_ERROR,
  isAcceptedAudio,
  isReadableAudio,
  isValidVideoUrl,
  type MusicFormErrors,
  type MusicFormField,
  type MusicFormValues,
  type Source,
  validateMusicForm,
} from './form.ts'
import { type MusicPrefill, prefillLink } from './search.ts'
import { applyCandidate, type Candidate, fillEmpty, isYoutubeLink } from './suggest.ts'
import { useDebouncedValue } from '~/hooks/use-debounced-value.ts'

function withPrefill(values: MusicFormValues, prefill: MusicPrefill): MusicFormValues {
  const next = { ...values }
  const link = prefillLink(prefill)
  if (link) {
    next.source = 'url'
    next.videoUrl = link
  }
  if (prefill.title) {
    next.title = prefill.title
    next.album = albumFromTitle(prefill.title)
  }
  if (prefill.artist) next.artist = prefill.artist
  if (prefill.artworkUrl) next.artworkUrl = prefill.artworkUrl
  return next
}

const musicForm = () => document.querySelector<HTMLFormElement>('form[aria-label="Music Downloader / Converter"]')
/** After a job starts: the link field (or the file chooser) gets the focus the busy Submit button lost. */
function focusFirstField() {
  requestAnimationFrame(() => musicForm()?.querySelector<HTMLElement>('input[name="video_url"], [data-part="dropzone"], [data-part="trigger"]')?.focus())
}
function focusSubmit() {
  requestAnimationFrame(() => musicForm()?.querySelector<HTMLElement>('button[type="submit"]')?.focus())
}

/** "Nothing could be read at this link: …" for a failed GET /api/music/lookup. */
export function lookupErrorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 400) return lookupFailure(err.errorKind ?? null, err.errorReason)
  const why = errorText(err).replace(/^video_url: /, '')
  return `Nothing could be read at this link: ${why.charAt(0).toLowerCase()}${why.slice(1)}`
}

/**
 * State and behaviour of the 'Music Downloader / Converter' form (docs/product.md#music-downloader, docs/product.md#music-form):
 * validation shown per field once touched (all of it after a submit), the album
 * derived from the title, grouping looked up from a valid video URL and the
 * artwork resolved (both after 500 ms of quiet), tags read from a chosen file,
 * and the job created with the resolved artwork.
 */
export function useMusicForm({ prefill, onCreated }: { prefill: MusicPrefill; onCreated?: () => void }) {
  const queryClient = useQueryClient()
  const [values, setValues] = useState<MusicFormValues>(() => withPrefill(emptyMusicForm, prefill))
  const [touched, setTouched] = useState<ReadonlySet<MusicFormField>>(new Set())
  const [submitted, setSubmitted] = useState(false)
  const [fileRejected, setFileRejected] = useState<string | null>(null)
  const [preparing, setPreparing] = useState(false)

  const set = <K extends keyof MusicFormValues>(key: K, value: MusicFormValues[K]) => setValues((v) => ({ ...v, [key]: value }))
  const touch = (field: MusicFormField) => setTouched((t) => (t.has(field) ? t : new Set(t).add(field)))

  // --- validation
  const errors: MusicFormErrors = useMemo(() => {
    const found = validateMusicForm(values)
    if (values.source === 'file' && fileRejected) found.file = fileRejected
    return found
  }, [values, fileRejected])
  const errorOf = (field: MusicFormField) => (submitted || touched.has(field) ? errors[field] : undefined)

  // --- debounced inputs (docs/product.md#music-form)
  const [debouncedUrl, setDebouncedUrl] = useDebouncedValue(values.videoUrl.trim(), INPUT_DEBOUNCE_MS)
  const [debouncedArtwork, setDebouncedArtwork] = useDebouncedValue(values.artworkUrl.trim(), INPUT_DEBOUNCE_MS)

  // --- grouping from a valid video URL
  const lookUpGrouping = values.source === 'url' && isValidVideoUrl(debouncedUrl)
  const grouping = useQuery({ ...groupingQuery(debouncedUrl), enabled: lookUpGrouping })
  useEffect(() => {
    if (lookUpGrouping && grouping.data?.grouping) set('grouping', grouping.data.grouping)
    // only when an answer arrives, not when the user edits the grouping afterwards
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [grouping.data])

  // --- suggestions from the link (tags, chapters, playlist): they fill only what is still empty
  const lookup = useQuery({ ...lookupQuery(debouncedUrl), enabled: lookUpGrouping })
  const link = lookUpGrouping ? lookup.data : undefined
  // docs/product.md#music-form: a link that cannot be read says why beside the field; the form stays usable
  const linkError = lookUpGrouping && lookup.isError && !lookup.isFetching && values.videoUrl.trim() === debouncedUrl ? lookupErrorText(lookup.error) : null
  useEffect(() => {
    if (link) setValues((v) => fillEmpty(v, link))
  }, [link])

  // --- MusicBrainz candidates, searched on request, applied with one click
  const [brainzSearch, setBrainzSearch] = useState<{ artist: string; title: string } | null>(null)
  const brainz = useQuery({ ...musicbrainzQuery(brainzSearch?.artist ?? '', brainzSearch?.title ?? ''), enabled: !!brainzSearch })
  const pickCandidate = (c: Candidate) => {
    setValues((v) => applyCandidate(v, c))
    if (c.coverUrl) setDebouncedArtwork(c.coverUrl)
    setBrainzSearch(null)
  }

  // --- artwork: used directly, resolved by the server, or cleared
  const artworkSource = classifyArtwork(debouncedArtwork)
  const artwork = useQuery({ ...artworkQuery(artworkSource.kind === 'resolve' ? artworkSource.url : ''), enabled: artworkSource.kind === 'resolve' })
  const resolvedArtwork =
    artworkSource.kind === 'direct' ? artworkSource.url : artworkSource.kind === 'resolve' ? (artwork.data?.resolvedArtworkUrl ?? null) : null
  const typedArtwork = values.artworkUrl.trim()
  const artworkStatus: 'none' | 'pending' | 'found' | 'failed' = !typedArtwork
    ? 'none'
    : typedArtwork !== debouncedArtwork || (artworkSource.kind === 'resolve' && artwork.isFetching)
      ? 'pending'
      : resolvedArtwork
        ? 'found'
        : 'failed'

  // --- tags from a chosen file
  const readTags = useReadTags()
  const currentFile = useRef<File | null>(null)
  const fillFromTags = (tags: MusicTags) =>
    setValues((v) => {
      const next = { ...v }
      if (tags.title) next.title = tags.title
      if (tags.artist) next.artist = tags.artist
      if (tags.album) next.album = tags.album
      else if (tags.title) next.album = albumFromTitle(tags.title)
      if (tags.grouping) next.grouping = tags.grouping
      if (tags.artworkUrl) next.artworkUrl = tags.artworkUrl
      if (tags.year) next.year = String(tags.year)
      if (tags.trackNumber) next.trackNumber = String(tags.trackNumber)
      return next
    })

  const chooseFile = (file: File | null) => {
    currentFile.current = file
    setFileRejected(null)
    set('file', file)
    touch('file')
    if (!file || !isAcceptedAudio(file)) return
    // checked when chosen, not first on Submit: a file named .mp3 that is not audio says so now
    void isReadableAudio(file).then((ok) => {
      if (currentFile.current !== file) return
      if (!ok) return rejectFile(FILE_CONTENT_ERROR)
      readTagsOf(file)
    })
  }
  const readTagsOf = (file: File) => {
    readTags.mutate(file, {
      onSuccess: (tags) => {
        if (currentFile.current !== file) return // another file was chosen meanwhile
        fillFromTags(tags)
        if (tags.artworkUrl) setDebouncedArtwork(tags.artworkUrl)
      },
    })
  }
  const rejectFile = (message: string) => {
    currentFile.current = null
    set('file', null)
    touch('file')
    setFileRejected(message)
  }

  // --- prefill from search params that change while the page is open ("Save as track")
  const lastPrefill = useRef(JSON.stringify(prefill))
  useEffect(() => {
    const key = JSON.stringify(prefill)
    if (key === lastPrefill.current) return
    lastPrefill.current = key
    if (!Object.values(prefill).some(Boolean)) return
    setValues((v) => withPrefill(v, prefill))
    if (prefill.videoUrl) setDebouncedUrl(prefill.videoUrl.trim())
    if (prefill.artworkUrl) setDebouncedArtwork(prefill.artworkUrl.trim())
  }, [prefill, setDebouncedUrl, setDebouncedArtwork])

  // --- submit
  const create = useCreateJob()

  /** The artwork to send: the current input resolved now (the debounced preview may lag behind). */
  const artworkForSubmit = async (): Promise<string | undefined> => {
    const source = classifyArtwork(values.artworkUrl)
    if (source.kind === 'direct') return source.url
    if (source.kind === 'none') return undefined
    try {
      return (await queryClient.fetchQuery(artworkQuery(source.url))).resolvedArtworkUrl
    } catch {
      return undefined
    }
  }

  const submit = async (event?: FormEvent) => {
    event?.preventDefault()
    setSubmitted(true)
    if (Object.keys(errors).length > 0 || create.isPending || preparing) return
    setPreparing(true)
    let artworkUrl: string | undefined
    try {
      artworkUrl = await artworkForSubmit()
    } finally {
      setPreparing(false)
    }
    const fromFile = values.source === 'file'
    start({
      file: fromFile ? (values.file ?? undefined) : undefined,
      videoUrl: fromFile ? undefined : values.videoUrl.trim(),
      artworkUrl,
      title: values.title.trim(),
      artist: values.artist.trim(),
      album: values.album.trim(),
      grouping: values.grouping.trim() || undefined,
      year: Number(values.year) || undefined,
      trackNumber: Number(values.trackNumber) || undefined,
      splitChapters: !fromFile && values.splitChapters && (link?.chapters.length ?? 0) > 0,
      removeSegments: !fromFile && values.removeSegments && isYoutubeLink(values.videoUrl) ? 'music_offtopic' : undefined,
    })
  }

  /** "Add all N": one job per playlist entry, the album and artist from the form as fallbacks. */
  const addPlaylist = async () => {
    if (!link?.playlist || create.isPending) return
    start({
      videoUrl: values.videoUrl.trim(),
      playlist: true,
      artworkUrl: await artworkForSubmit(),
      title: '',
      artist: values.artist.trim(),
      album: values.album.trim(),
      grouping: values.grouping.trim() || undefined,
      removeSegments: values.removeSegments && isYoutubeLink(values.videoUrl) ? 'music_offtopic' : undefined,
    })
  }

  const start = (input: CreateJobInput) =>
    create.mutate(
      input,
      {
        onSuccess: () => {
          notify.success('Job Created Successfully')
          // docs/product.md#music-downloader: then the video URL, artwork URL and title are cleared
          setValues(afterJobCreated)
          setDebouncedUrl('')
          setDebouncedArtwork('')
          setSubmitted(false)
          setTouched(new Set())
          onCreated?.()
          // the busy Submit button dropped focus to <body>: on to the next link (or file)
          focusFirstField()
        },
        onError: (err) => {
          notify.error('Job Failed to Start', errorText(err))
          focusSubmit()
        },
      },
    )

  return {
    values,
    errorOf,
    touch,
    setSource: (source: Source) => set('source', source),
    setVideoUrl: (url: string) => set('videoUrl', url),
    setArtworkUrl: (url: string) => set('artworkUrl', url),
    /** Props of a tag's text field: `<TextField label="Title" required {...form.tagField('title')} />`. */
    tagField: (key: 'title' | 'artist' | 'album' | 'grouping' | 'year' | 'trackNumber') => ({
      name: key,
      value: values[key],
      onChange: (e: { target: { value: string } }) =>
        key === 'title'
          ? setValues((v) => ({ ...v, title: e.target.value, album: albumFromTitle(e.target.value) }))
          : set(key, e.target.value),
      onBlur: () => touch(key),
      error: errorOf(key),
    }),
    chooseFile,
    rejectFile,
    setFlag: (key: 'splitChapters' | 'removeSegments', on: boolean) => set(key, on),
    link: {
      loading: lookUpGrouping && lookup.isFetching,
      /** A YouTube look-up that could not get its turn (503: busy, or paused after a bot check): the server's sentence. */
      busy: lookUpGrouping && lookup.error instanceof ApiError && lookup.error.status === 503 ? lookup.error.message : null,
      // a 503 (no turn at YouTube yet) is `busy`, not a link that cannot be read
      error: lookup.error instanceof ApiError && lookup.error.status === 503 ? null : linkError,
      chapters: link?.chapters ?? [],
      playlist: link?.playlist ?? null,
      youtube: values.source === 'url' && isYoutubeLink(values.videoUrl),
    },
    addPlaylist,
    brainz: {
      search: () => setBrainzSearch({ artist: values.artist.trim(), title: values.title.trim() }),
      close: () => setBrainzSearch(null),
      open: !!brainzSearch,
      loading: brainz.isFetching,
      error: brainz.isError ? 'Unable to reach MusicBrainz.' : null,
      candidates: brainz.data?.candidates ?? [],
      use: pickCandidate,
    },
    /** The album is the one derived from the title (not typed or from tags). */
    albumFromTitle: values.album !== '' && values.album === albumFromTitle(values.title),
    groupingLoading: lookUpGrouping && grouping.isFetching,
    groupingFailed: lookUpGrouping && grouping.isError,
    tagsLoading: readTags.isPending,
    resolvedArtwork,
    artworkStatus,
    submitting: preparing || create.isPending,
    submit,
  }
}

export type MusicFormState = ReturnType<typeof useMusicForm>
