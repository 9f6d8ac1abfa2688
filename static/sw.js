// The club's service worker (issue 28, docs/browser.md "An app on the phone"): it keeps a copy of
// the page's shell — the page at "/" and the files under /static/ — so the club's page installs
// to the home screen and opens without the network. Network first: every request goes to the
// server and only its answer is kept, so an upgrade of the server is seen at once; the copy is
// used only when the server cannot be reached. Nothing else is ever kept: no /api/ answer, no
// socket, no cookie — so no hand, no session and no member's data is in the cache.
const CACHE = "prefclub-shell-v1";

/** Is this a request whose answer may be kept: a GET of the shell of this origin? */
function keepable(request) {
  if (request.method !== "GET") return false;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  return url.pathname === "/" || url.pathname.startsWith("/static/");
}

self.addEventListener("install", (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  if (!keepable(event.request)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const answer = await fetch(event.request);
      if (answer.ok && answer.type === "basic") await cache.put(event.request, answer.clone());
      return answer;
    } catch (err) {
      const kept = await cache.match(event.request, { ignoreSearch: true });
      if (kept) return kept;
      throw err;
    }
  })());
});
