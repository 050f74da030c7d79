import { describe, expect, test } from 'bun:test'
import { CATEGORY_ICONS } from './components/category-icon.tsx'
import { categoryIds, categoryOptions, filtersFrom, pickedCategoryOptions, videoListSearch, withFilter, withPage } from './search.ts'

describe('video list search params', () => {
  test('defaults: page 1, 48 a page, no filters', () => {
    expect(filtersFrom(videoListSearch.parse({}))).toEqual({
      page: 1,
      perPage: 48,
      videoCategories: [],
      likedOnly: false,
      queuedOnly: false,
      hideWatched: false,
      hideShorts: false,
      hideLive: false,
      q: '',
      channelId: undefined,
    })
  })
  test('garbage falls back to defaults instead of failing the page', () => {
    const s = videoListSearch.parse({ page: 'x', perPage: -3, videoCategories: 'music', likedOnly: 'maybe' })
    expect(filtersFrom(s)).toMatchObject({ page: 1, perPage: 48, videoCategories: [], likedOnly: false })
  })
  test('any filter change resets the page to 1 (page leaves the URL)', () => {
    const s = { page: 4, likedOnly: true }
    expect(withFilter(s, { queuedOnly: true })).toEqual({ page: undefined, likedOnly: true, queuedOnly: true })
    expect(withFilter(s, { likedOnly: false })).toEqual({ page: undefined, likedOnly: undefined })
    expect(withFilter({ page: 2 }, { videoCategories: [10, 20] })).toEqual({ page: undefined, videoCategories: [10, 20] })
    expect(withFilter({ page: 2, videoCategories: [10] }, { videoCategories: [] })).toEqual({ page: undefined, videoCategories: undefined })
  })
  test('hide filters and title words: kept in the URL, page reset, defaults left out', () => {
    const s = videoListSearch.parse({ page: 3, hideShorts: true, hideWatched: 'yes', q: '  sky  ' })
    expect(filtersFrom(s)).toMatchObject({ page: 3, hideShorts: true, hideWatched: false, q: 'sky' })
    expect(withFilter(s, { hideLive: true })).toEqual({ page: undefined, hideShorts: true, hideWatched: undefined, hideLive: true, q: '  sky  ' })
    expect(withFilter(s, { hideShorts: false, q: ' ' })).toEqual({ page: undefined, hideShorts: undefined, hideWatched: undefined, q: undefined })
  })
  test('paging keeps the filters', () => {
    expect(withPage({ likedOnly: true }, 3)).toEqual({ likedOnly: true, page: 3 })
    expect(withPage({ likedOnly: true, page: 3 }, 1)).toEqual({ likedOnly: true, page: undefined })
  })
  test('categories are sorted so the same selection is the same list', () => {
    expect(filtersFrom({ videoCategories: [20, 10] }).videoCategories).toEqual([10, 20])
  })
})

describe('category icons (docs/product.md#video-categories)', () => {
  const SPEC_IDS = [1, 2, 10, 15, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 35, 36, 37, 38, 39, 42, 43, 44]
  test('every category of the table has an icon, except thriller', () => {
    for (const id of SPEC_IDS) expect(CATEGORY_ICONS[id]).toBeDefined()
    expect(CATEGORY_ICONS[41]).toBeUndefined()
  })

  test('Categories: each name once, filtering by every id behind it (YouTube has two "Comedy", 23 and 34)', () => {
    // as GET /api/youtube/videos/categories answers for YouTube's US list (src/youtube/categories.ts)
    const options = categoryOptions([
      { id: 1, name: 'Film & Animation' },
      { id: 10, name: 'Music' },
      { id: 23, name: 'Comedy' },
      { id: 24, name: 'Entertainment' },
      { id: 34, name: 'Comedy' },
    ])
    const labels = options.map((o) => o.label)
    expect(labels.filter((l) => l === 'Comedy')).toHaveLength(1)
    expect(new Set(labels).size).toBe(labels.length)
    const comedy = options.find((o) => o.label === 'Comedy')!
    expect(categoryIds([comedy.value])).toEqual([23, 34])
    // a URL holding either id (or both) shows the one "Comedy" as picked
    expect(pickedCategoryOptions(options, [34])).toEqual(['23,34'])
    expect(pickedCategoryOptions(options, [23, 34, 10])).toEqual(['10', '23,34'])
    expect(categoryIds(pickedCategoryOptions(options, [10, 23]))).toEqual([10, 23, 34])
  })
})
