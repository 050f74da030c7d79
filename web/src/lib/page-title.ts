/** Route `head` for a page: the document title "<Page> | Tunefeed" (docs/product.md#layout). */
export function pageTitle(page: string) {
  return { meta: [{ title: `${page} | Tunefeed` }] }
}
