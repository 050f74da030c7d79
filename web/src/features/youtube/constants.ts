/** docs/product.md#constants: videos and subscriptions are listed 48 to a page; the video page shows 4 related videos. */
export const PAGE_SIZE = 48
export const RELATED_VIDEOS = 4
