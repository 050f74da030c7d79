import type { InvalidateQueryFilters, QueryClient } from '@tanstack/react-query'

/**
 * `invalidateQueries` for news from a socket (docs/product.md#live-updates): the change
 * happened now, so any answer still on its way may predate it. react-query cancels and
 * restarts such a fetch only when the query already holds data; a query's first fetch is
 * left to finish, and its answer clears the invalidation (a new channel page's video list,
 * asked before the channel's first refresh was written, would stay empty). Such a query is
 * invalidated again once that fetch has settled, so the answer that stands was asked after
 * the change.
 */
export function invalidateFresh(queryClient: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  for (const query of queryClient.getQueryCache().findAll(filters)) {
    const firstFetch = query.state.data === undefined ? query.promise : undefined
    if (!firstFetch) continue
    const again = () => queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true })
    // settled (answered, failed or cancelled): the cache holds its outcome by now
    void firstFetch.then(again, again)
  }
  return queryClient.invalidateQueries(filters)
}
