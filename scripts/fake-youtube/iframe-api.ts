import type { FakeYoutube } from './server.ts'

// A local stand-in of the YouTube IFrame Player API, written from its reference
// (developers.google.com/youtube/iframe_api_reference): `/iframe_api` defines `YT.Player`
// and calls `onYouTubeIframeAPIReady`; each player is an iframe of `/embed/<id>` that plays
// the fake's WebM clip and talks to its page by postMessage, as the real embed does.
// A removed video answers error 100; one with embedding disabled 101 or 150 (fake.embedErrors).

/** Error code of a video for the embed: 100 not found/removed, else its embedding error, else null. */
export function embedError(fake: FakeYoutube, videoId: string): number | null {
  if (!fake.videos.has(videoId)) return 100
  return fake.embedErrors.get(videoId) ?? null
}

export function embedStatus(fake: FakeYoutube, videoId: string): Response {
  return Response.json({ error: embedError(fake, videoId) }, { headers: { 'cache-control': 'no-store' } })
}

/** The API script: `YT.Player`, `YT.PlayerState`, then `onYouTubeIframeAPIReady()`. */
export function iframeApi(fake: FakeYoutube): Response {
  fake.iframeApiRequests++
  const js = `(function () {
  'use strict';
  var BASE = ${JSON.stringify(fake.url)};
  var PlayerState = { UNSTARTED: -1, ENDED: 0, PLAYING: 1, PAUSED: 2, BUFFERING: 3, CUED: 5 };
  var nextId = 1;
  function videoArgs(a, start) {
    if (a && typeof a === 'object') return { videoId: a.videoId, startSeconds: a.startSeconds || 0, endSeconds: a.endSeconds };
    return { videoId: a, startSeconds: start || 0 };
  }
  function Player(target, options) {
    var self = this;
    options = options || {};
    var el = typeof target === 'string' ? document.getElementById(target) : target;
    if (!el) throw new Error('YT.Player: no element ' + target);
    var vars = options.playerVars || {};
    var query = new URLSearchParams({ enablejsapi: '1', widgetid: String(nextId++) });
    for (var k in vars) query.set(k, String(vars[k]));
    var iframe = document.createElement('iframe');
    iframe.id = el.id || ('widget' + query.get('widgetid'));
    iframe.src = BASE + '/embed/' + encodeURIComponent(options.videoId || '') + '?' + query.toString();
    iframe.width = String(options.width == null ? 640 : options.width);
    iframe.height = String(options.height == null ? 390 : options.height);
    iframe.setAttribute('frameborder', '0');
    iframe.setAttribute('allow', 'accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture');
    iframe.setAttribute('allowfullscreen', '');
    iframe.title = options.title || 'YouTube video player';
    el.parentNode.replaceChild(iframe, el);
    this._iframe = iframe;
    this._listeners = {};
    this._info = { currentTime: 0, duration: 0, playerState: PlayerState.UNSTARTED, videoUrl: '', playbackRate: 1, volume: 100, muted: false };
    this._ready = false;
    this._queue = [];
    var events = options.events || {};
    for (var name in events) this.addEventListener(name, events[name]);
    this._onMessage = function (e) {
      if (e.source !== iframe.contentWindow) return;
      var msg;
      try { msg = typeof e.data === 'string' ? JSON.parse(e.data) : e.data; } catch (err) { return; }
      if (!msg || typeof msg.event !== 'string') return;
      if (msg.event === 'initialDelivery' || msg.event === 'infoDelivery') {
        for (var key in msg.info) self._info[key] = msg.info[key];
        return;
      }
      if (msg.event === 'onReady') {
        self._ready = true;
        var queued = self._queue; self._queue = [];
        for (var i = 0; i < queued.length; i++) self._send(queued[i][0], queued[i][1]);
      }
      if (msg.event === 'onStateChange') self._info.playerState = msg.info;
      self._fire(msg.event, msg.info);
    };
    window.addEventListener('message', this._onMessage);
    iframe.addEventListener('load', function () {
      // the page asks the embed to start talking, as the real API does
      iframe.contentWindow.postMessage(JSON.stringify({ event: 'listening', id: iframe.id }), BASE);
    });
  }
  Player.prototype._send = function (func, args) {
    if (!this._iframe || !this._iframe.contentWindow) return;
    if (!this._ready) { this._queue.push([func, args]); return; }
    this._iframe.contentWindow.postMessage(JSON.stringify({ event: 'command', func: func, args: args || [] }), BASE);
  };
  Player.prototype._fire = function (name, data) {
    var list = (this._listeners[name] || []).slice();
    for (var i = 0; i < list.length; i++) {
      var fn = typeof list[i] === 'string' ? window[list[i]] : list[i];
      if (typeof fn === 'function') fn({ target: this, data: data === undefined ? null : data });
    }
  };
  Player.prototype.addEventListener = function (name, fn) { (this._listeners[name] = this._listeners[name] || []).push(fn); };
  Player.prototype.removeEventListener = function (name, fn) {
    this._listeners[name] = (this._listeners[name] || []).filter(function (f) { return f !== fn; });
  };
  Player.prototype.loadVideoById = function (a, start) {
    var v = videoArgs(a, start);
    this._info.currentTime = v.startSeconds; this._info.duration = 0;
    this._send('loadVideoById', [v]);
  };
  Player.prototype.cueVideoById = function (a, start) {
    var v = videoArgs(a, start);
    this._info.currentTime = v.startSeconds; this._info.duration = 0;
    this._send('cueVideoById', [v]);
  };
  Player.prototype.playVideo = function () { this._send('playVideo'); };
  Player.prototype.pauseVideo = function () { this._send('pauseVideo'); };
  Player.prototype.stopVideo = function () { this._send('stopVideo'); };
  Player.prototype.seekTo = function (seconds, allowSeekAhead) { this._info.currentTime = seconds; this._send('seekTo', [seconds, allowSeekAhead]); };
  Player.prototype.mute = function () { this._info.muted = true; this._send('mute'); };
  Player.prototype.unMute = function () { this._info.muted = false; this._send('unMute'); };
  Player.prototype.isMuted = function () { return this._info.muted; };
  Player.prototype.setVolume = function (v) { this._info.volume = v; this._send('setVolume', [v]); };
  Player.prototype.getVolume = function () { return this._info.volume; };
  Player.prototype.setPlaybackRate = function (r) { this._send('setPlaybackRate', [r]); };
  Player.prototype.getPlaybackRate = function () { return this._info.playbackRate; };
  Player.prototype.getCurrentTime = function () { return this._info.currentTime; };
  Player.prototype.getDuration = function () { return this._info.duration; };
  Player.prototype.getPlayerState = function () { return this._info.playerState; };
  Player.prototype.getVideoUrl = function () { return this._info.videoUrl; };
  Player.prototype.getIframe = function () { return this._iframe; };
  Player.prototype.destroy = function () {
    window.removeEventListener('message', this._onMessage);
    if (this._iframe && this._iframe.parentNode) this._iframe.parentNode.removeChild(this._iframe);
    this._iframe = null;
  };
  window.YT = { Player: Player, PlayerState: PlayerState, loaded: 1 };
  if (typeof window.onYouTubeIframeAPIReady === 'function') window.onYouTubeIframeAPIReady();
})();
`
  return new Response(js, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' } })
}

/** The embedded player page: a <video> of the clip, driven by the API's commands. */
export function embedPage(fake: FakeYoutube): Response {
  fake.embedRequests++
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>YouTube embed (fake)</title>
<style>html,body{margin:0;height:100%;background:#000}video{width:100%;height:100%;display:block}</style></head>
<body><video id="v" playsinline muted data-player="embed"></video>
<script>
(function () {
  'use strict';
  var v = document.getElementById('v');
  var params = new URLSearchParams(location.search);
  var parentOrigin = params.get('origin') || '*';
  var state = -1, current = '', ended = false, started = false;
  function post(event, info) { parent.postMessage(JSON.stringify({ event: event, info: info }), parentOrigin); }
  function setState(s) { if (s === state) return; state = s; post('onStateChange', s); info(); }
  function info() {
    post('infoDelivery', { currentTime: v.currentTime || 0, duration: isFinite(v.duration) ? v.duration : 0, playerState: state,
      videoUrl: current ? 'https://www.youtube.com/watch?v=' + current : '', playbackRate: v.playbackRate, volume: Math.round(v.volume * 100), muted: v.muted });
  }
  function open(a, play) {
    current = a.videoId; ended = false; started = play;
    return fetch('/embed/' + encodeURIComponent(a.videoId) + '/status').then(function (r) { return r.json(); }).then(function (s) {
      if (a.videoId !== current) return;
      if (s.error) { v.removeAttribute('src'); v.load(); setState(-1); post('onError', s.error); return; }
      v.src = '/media/' + encodeURIComponent(a.videoId) + '.webm';
      v.currentTime = a.startSeconds || 0;
      if (play) { setState(-1); setState(3); v.play().catch(function () { setState(-1); }); }
      else { v.preload = 'metadata'; setState(5); }
    });
  }
  var commands = {
    loadVideoById: function (a) { open(a, true); },
    cueVideoById: function (a) { open(a, false); },
    playVideo: function () { if (v.src) { started = true; if (ended) v.currentTime = 0; v.play().catch(function () {}); } },
    pauseVideo: function () { v.pause(); },
    stopVideo: function () { v.pause(); v.currentTime = 0; setState(5); },
    seekTo: function (s) { v.currentTime = Math.max(0, s); ended = false; info(); },
    mute: function () { v.muted = true; }, unMute: function () { v.muted = false; },
    setVolume: function (x) { v.volume = Math.max(0, Math.min(1, x / 100)); },
    setPlaybackRate: function (r) { v.playbackRate = r; }
  };
  v.addEventListener('playing', function () { ended = false; setState(1); });
  v.addEventListener('pause', function () { if (!ended && started) setState(2); });
  v.addEventListener('waiting', function () { if (started) setState(3); });
  v.addEventListener('ended', function () { ended = true; setState(0); });
  v.addEventListener('timeupdate', info);
  v.addEventListener('durationchange', info);
  window.addEventListener('message', function (e) {
    if (e.source !== parent) return;
    var msg; try { msg = JSON.parse(e.data); } catch (err) { return; }
    if (msg.event === 'listening') {
      post('initialDelivery', { currentTime: 0, duration: 0, playerState: -1 });
      post('onReady', null);
      var first = location.pathname.split('/')[2];
      if (first) open({ videoId: decodeURIComponent(first), startSeconds: Number(params.get('start') || 0) }, params.get('autoplay') === '1');
      return;
    }
    if (msg.event === 'command' && commands[msg.func]) commands[msg.func].apply(null, msg.args || []);
  });
  setInterval(function () { if (state === 1) info(); }, 250);
})();
</script></body></html>`
  return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })
}
