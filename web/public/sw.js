// Tunefeed service worker: keeps the app shell (the page and its built files) so the installed
// app opens without a network; never caches API data. See docs/decisions/073-installable-app-and-share-target.md.
const CACHE = 'tunefeed-shell-v2'
const SHELL = ['/', '/manifest.webmanifest', '/favicon.svg', '/icons/icon-192.png', '/icons/icon-512.png']

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  )
})

/**
 * Only what the shell is made of: page navigations, built files and the listed shell files
 * (same-origin GETs outside /api, /metrics, /rest and /feeds); only an HTML page is kept as the shell. Everything else, such as /iframe_api (a
 * redirect to the player script of another site), goes to the network untouched.
 */
function isShell(url, request) {
  if (request.method !== 'GET' || url.origin !== self.location.origin) return false
  // not the app: its API, metrics, the Subsonic API (/rest) and podcast feeds (/feeds), even when opened in a tab
  if (/^\/(api|metrics|rest|feeds)(\/|$)/.test(url.pathname)) return false
  return request.mode === 'navigate' || url.pathname.startsWith('/assets/') || SHELL.includes(url.pathname)
}

async function keep(request, response) {
  if (response.ok && response.type === 'basic' && !response.redirected) {
    const cache = await caches.open(CACHE)
    await cache.put(request, response.clone())
  }
  return response
}

self.addEventListener('fetch', (event) => {
  const request = event.request
  const url = new URL(request.url)
  if (!isShell(url, request)) return // the network as usual: API calls, sockets, media, other sites
  if (request.mode === 'navigate') {
    // pages: the network first (fresh index.html), the cached shell when offline
    event.respondWith(
      fetch(request)
        .then((res) => (res.ok && (res.headers.get('content-type') ?? '').startsWith('text/html') ? keep('/', res) : res))
        .catch(async () => (await caches.match('/')) ?? Response.error()),
    )
    return
  }
  if (url.pathname.startsWith('/assets/')) {
    // built files have content hashes in their names: a cached one never changes
    event.respondWith(caches.match(request).then((hit) => hit ?? fetch(request).then((res) => keep(request, res))))
    return
  }
  // icons, manifest: the cached copy at once, refreshed in the background
  event.respondWith(
    caches.match(request).then((hit) => {
      const fresh = fetch(request)
        .then((res) => keep(request, res))
        .catch(() => hit ?? Response.error())
      return hit ?? fresh
    }),
  )
})
