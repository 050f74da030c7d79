/** docs/product.md#layout and docs/product.md#constants: fixed shell sizes in px. */
export const HEADER_HEIGHT = 60
export const NAVBAR_WIDTH = 200
export const FOOTER_HEIGHT = 100
