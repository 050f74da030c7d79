/**
 * YouTube's video categories (regionCode US), after the spec's table in
 * docs/product.md#video-categories. The spec listed "scifi fantasy 38", which it itself marked
 * as a probable mistake: YouTube's id is 40 (38 is Foreign), and the spec's
 * table leaves out 34 (Comedy, a second one). See docs/decisions/022.
 *
 * Used to name a category before `youtube.refreshCategories` has run, and by
 * the fake YouTube server as its data.
 */
export const YOUTUBE_CATEGORIES: ReadonlyArray<{ id: number; name: string; assignable: boolean }> = [
  { id: 1, name: 'Film & Animation', assignable: true },
  { id: 2, name: 'Autos & Vehicles', assignable: true },
  { id: 10, name: 'Music', assignable: true },
  { id: 15, name: 'Pets & Animals', assignable: true },
  { id: 17, name: 'Sports', assignable: true },
  { id: 18, name: 'Short Movies', assignable: false },
  { id: 19, name: 'Travel & Events', assignable: true },
  { id: 20, name: 'Gaming', assignable: true },
  { id: 21, name: 'Videoblogging', assignable: false },
  { id: 22, name: 'People & Blogs', assignable: true },
  { id: 23, name: 'Comedy', assignable: true },
  { id: 24, name: 'Entertainment', assignable: true },
  { id: 25, name: 'News & Politics', assignable: true },
  { id: 26, name: 'Howto & Style', assignable: true },
  { id: 27, name: 'Education', assignable: true },
  { id: 28, name: 'Science & Technology', assignable: true },
  { id: 29, name: 'Nonprofits & Activism', assignable: true },
  { id: 30, name: 'Movies', assignable: false },
  { id: 31, name: 'Anime/Animation', assignable: false },
  { id: 32, name: 'Action/Adventure', assignable: false },
  { id: 33, name: 'Classics', assignable: false },
  { id: 34, name: 'Comedy', assignable: false },
  { id: 35, name: 'Documentary', assignable: false },
  { id: 36, name: 'Drama', assignable: false },
  { id: 37, name: 'Family', assignable: false },
  { id: 38, name: 'Foreign', assignable: false },
  { id: 39, name: 'Horror', assignable: false },
  { id: 40, name: 'Sci-Fi/Fantasy', assignable: false },
  { id: 41, name: 'Thriller', assignable: false },
  { id: 42, name: 'Shorts', assignable: false },
  { id: 43, name: 'Shows', assignable: false },
  { id: 44, name: 'Trailers', assignable: false },
]

const byId = new Map(YOUTUBE_CATEGORIES.map((c) => [c.id, c.name]))

/** A name for a category id, before the API has told us its real one. */
export function fallbackCategoryName(id: number): string {
  return byId.get(id) ?? `Category ${id}`
}
