/**
 * Registers the app-shell service worker (web/public/sw.js) in built apps, after
 * the first paint so it never competes with it. The dev server gets none: a
 * cached shell would hide edits.
 */
export function registerServiceWorker() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {
      // without a worker the app still works; it just does not open offline
    })
  })
}
