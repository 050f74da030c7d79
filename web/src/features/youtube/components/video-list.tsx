import { keptFileUrl } from '../keep-api.ts'
import { useQuery } from '@tanstack/react-query'
import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { useSnapshot } from 'valtio'
import { Alert } from '~/components/ui/alert.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { PageSpinner, Spinner } from '~/components/ui/spinner.tsx'
import { type PlayerVideo, clearPlayer, playerStore, syncList } from '~/player/store.ts'
import { errorText } from '~/lib/api.ts'
import { TextLink } from '~/components/ui/text-link.tsx'
import { type MarkChange, type Video, type VideoFilters, categoriesQuery, listIdentity, useToggleMark, videoListQuery, youtubeModeQuery } from '../api.ts'
import { type VideoListSearch, categoryIds, categoryOptions as toCategoryOptions, filtersFrom, pickedCategoryOptions, withFilter, withPage } from '../search.ts'
import { GroupChips } from './group-chips.tsx'
import { TitleSearch } from './title-search.tsx'
import { VideoCard } from './video-card.tsx'
import { CardCell, CardGrid } from './video-grid.tsx'

export type VideoListProps = {
  search: VideoListSearch
  onSearchChange(next: VideoListSearch): void
  /** Only this channel's videos (the channel page). */
  channelId?: string
}

// the filter shows once the categories have loaded: its code (and the popper under it) can wait until then
const Select = lazy(() => import('~/components/ui/select.tsx').then((m) => ({ default: m.Select })))

// the pager sits under 48 cards: its code loads once they have painted
const Pagination = lazy(() => import('~/components/ui/pagination.tsx').then((m) => ({ default: m.Pagination })))

/** Turns true once `ready` has been painted (the frame after it, not just its effects). */
function useAfterPaint(ready: boolean) {
  const [after, setAfter] = useState(false)
  useEffect(() => {
    if (!ready || after) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setAfter(true), 0)
    })
    return () => {
      cancelAnimationFrame(frame)
      clearTimeout(timer)
    }
  }, [ready, after])
  return after
}

function toPlayerVideo(v: Video): PlayerVideo {
  // fresh objects: valtio must not proxy (and let the player mutate) TanStack Query's cached data
  return {
    id: v.id,
    title: v.title,
    thumbnail: v.thumbnail,
    channel: { id: v.channel.id, title: v.channel.title, thumbnail: v.channel.thumbnail },
    mediaUrl: v.mediaUrl,
    watched: v.watched,
    keptFile: v.kept?.state === 'ready' ? keptFileUrl(v.id) : null,
  }
}

/**
 * Feeds the autoplay player from this list: its page while autoplay is on,
 * another page when the player moves past either end, and clears the player
 * when the list goes away (docs/product.md#autoplay: leaving the list clears it).
 */
function useAutoplayList(filters: VideoFilters, data: { videos: Video[]; totalPages: number } | undefined, ready: boolean, goToPage: (page: number) => void) {
  const key = JSON.stringify(listIdentity(filters))
  const { autoplay, pageRequest, listKey } = useSnapshot(playerStore)

  useEffect(() => () => clearPlayer(), [])

  useEffect(() => {
    if (!autoplay || !data || !ready) return
    syncList(playerStore, key, data.videos.map(toPlayerVideo), filters.page, data.totalPages)
  }, [autoplay, data, ready, key, filters.page])

  const go = useRef(goToPage)
  go.current = goToPage
  const requested = autoplay && listKey === key ? pageRequest?.page : undefined
  useEffect(() => {
    if (requested !== undefined && requested !== filters.page) go.current(requested)
  }, [requested, filters.page])
}

/**
 * docs/product.md#video-list, shared by the Videos and Channel pages: filters kept in
 * the URL, spinner while fetching, the responsive grid of cards, pagination.
 */
/** The empty feed's way on: follow channels (works with or without a YouTube API key). */
function NoVideosYet() {
  const mode = useQuery(youtubeModeQuery)
  return (
    <styled.p maxW="prose">
      {/* the link's name avoids "Subscriptions": the side navigation's link keeps that name to itself */}
      Videos come from the channels you follow: <TextLink to="/youtube/subscriptions">add channels to follow</TextLink> (Update Subscriptions, by
      channel id, @handle or link).
      {mode.data?.mode === 'feed' && ' This server has no YouTube API key: each channel shows its latest 15 videos, then every new one, and categories are not available.'}
    </styled.p>
  )
}

export function VideoList({ search, onSearchChange, channelId }: VideoListProps) {
  const filters = useMemo(() => filtersFrom(search, channelId), [search, channelId])
  const list = useQuery(videoListQuery(filters))
  const categories = useQuery(categoriesQuery)
  const toggle = useToggleMark()
  const onToggle = useCallback((change: MarkChange) => toggle.mutate(change), [toggle.mutate])

  useAutoplayList(filters, list.data, list.isSuccess && !list.isPlaceholderData, (page) => onSearchChange(withPage(search, page)))

  const categoryOptions = useMemo(() => toCategoryOptions(categories.data?.categories ?? []), [categories.data])
  const showPager = useAfterPaint(list.isSuccess)
  const videos = list.data?.videos ?? []
  const totalPages = list.data?.totalPages ?? 0

  return (
    <styled.section display="flex" flexDirection="column" gap="6" aria-label="Video list" aria-busy={list.isFetching}>
      {!channelId && <GroupChips value={filters.group} onChange={(group) => onSearchChange(withFilter(search, { group }))} />}
      <styled.div display="flex" alignItems="flex-end" columnGap="6" rowGap="4" flexWrap="wrap">
        <styled.div display="flex" alignItems="center" columnGap={{ base: '4', md: '6' }} rowGap="3" flexWrap="wrap" minH="10">
          <Checkbox checked={filters.likedOnly} onCheckedChange={(d) => onSearchChange(withFilter(search, { likedOnly: d.checked === true }))}>
            Show Liked Only
          </Checkbox>
          <Checkbox checked={filters.queuedOnly} onCheckedChange={(d) => onSearchChange(withFilter(search, { queuedOnly: d.checked === true }))}>
            Show Queued Only
          </Checkbox>
          <Checkbox checked={filters.hideWatched} onCheckedChange={(d) => onSearchChange(withFilter(search, { hideWatched: d.checked === true }))}>
            Hide Watched
          </Checkbox>
          <Checkbox checked={filters.hideShorts} onCheckedChange={(d) => onSearchChange(withFilter(search, { hideShorts: d.checked === true }))}>
            Hide Shorts
          </Checkbox>
          <Checkbox checked={filters.hideLive} onCheckedChange={(d) => onSearchChange(withFilter(search, { hideLive: d.checked === true }))}>
            Hide Live
          </Checkbox>
        </styled.div>
        {/* on a phone the search and the categories each take the full width, one under the other */}
        <styled.div display="flex" alignItems="flex-end" gap="3" flexWrap={{ base: 'wrap', sm: 'nowrap' }} width={{ base: 'full', sm: 'auto' }}>
          <TitleSearch value={filters.q} onChange={(q) => onSearchChange(withFilter(search, { q }))} />
          {categoryOptions.length > 0 && (
            <styled.div flex={{ base: '1 1 100%', sm: '1' }} width={{ sm: '72' }} minW="0">
              <Suspense fallback={<styled.div height="16" />}>
                <Select
                  label="Categories"
                  multiple
                  size="sm"
                  placeholder="All categories"
                  options={categoryOptions}
                  value={pickedCategoryOptions(categoryOptions, filters.videoCategories)}
                  onValueChange={(value) => onSearchChange(withFilter(search, { videoCategories: categoryIds(value) }))}
                />
              </Suspense>
            </styled.div>
          )}
          <styled.div width="6" height="9" display={{ base: list.isFetching && !list.isPending ? 'flex' : 'none', sm: 'flex' }} alignItems="center" justifyContent="center" flexShrink="0">
            {list.isFetching && !list.isPending && <Spinner size="sm" label="Loading videos" />}
          </styled.div>
        </styled.div>
      </styled.div>

      {list.isPending && <PageSpinner label="Loading videos" />}
      {list.isError && !list.data && <Alert status="error">{errorText(list.error)}</Alert>}
      {list.isSuccess && videos.length === 0 && (
        <styled.div color="fg.muted" py="10" textAlign="center" display="flex" flexDirection="column" gap="2" alignItems="center">
          <p>{filters.q ? 'No videos match.' : filters.likedOnly ? 'No liked videos.' : filters.queuedOnly ? 'No queued videos.' : 'No videos.'}</p>
          {!channelId && !filters.q && !filters.likedOnly && !filters.queuedOnly && filters.page === 1 && <NoVideosYet />}
        </styled.div>
      )}

      <CardGrid label="Videos">
        {videos.map((video) => (
          <CardCell key={video.id}>
            <VideoCard video={video} onToggle={onToggle} />
          </CardCell>
        ))}
      </CardGrid>

      {showPager && (
        <Suspense fallback={null}>
          <Pagination page={filters.page} totalPages={totalPages} onPageChange={(page) => onSearchChange(withPage(search, page))} />
        </Suspense>
      )}
    </styled.section>
  )
}
