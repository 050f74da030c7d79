/** Route `head` for a page: the document title "<Page> | Tunefeed" (SPEC 1). */
export function pageTitle(page: string) {
  return { meta: [{ title: `${page} | Tunefeed` }] }
}
