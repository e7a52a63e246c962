// Live updates over a WebSocket, with polling while the socket is down: the socket reconnects
// after a pause, polling stops once it is open again, and a page restored from the back/forward
// cache picks up where it left off.
//
// Conventions for every script under Public/js/: `data-*` attributes carry values that belong to
// one element; the single JSON config block (shared/config.js) carries values the whole page
// needs; no inline scripts or handlers (the Content-Security-Policy forbids them).

/** The close code of a server that is restarting (`GracefulShutdown`). */
const RESTART = 1012;

/** A same-site path or http(s) address as the matching ws(s) address. */
function socketURL(url) {
  const address = new URL(url, location.href);
  if (address.protocol === 'https:') address.protocol = 'wss:';
  else if (address.protocol === 'http:') address.protocol = 'ws:';
  return address.href;
}

/**
 * Follows the WebSocket at `url` (a path is fine). Each JSON message goes to `onMessage(data)`
 * (messages that are not JSON are ignored). While the socket is down, `poll()` runs at once and
 * then every `interval` ms, and a new socket is tried after `reconnectDelay` ms (a second or so
 * when the server closed it for a restart, code 1012). `onStatus` hears
 * 'live' when a socket opens and 'polling' when polling starts.
 *
 * Leaving the page (pagehide) stops reconnecting and polling from starting; coming back to it
 * from the back/forward cache (pageshow with `persisted`) resumes. Returns `{ stop(), stopped, send(data) }`:
 * `stop()` ends following (say, before navigating away) until such a resume.
 */
export function follow(url, { onMessage, poll = () => {}, onStatus = () => {}, interval = 3000, reconnectDelay = 5000 } = {}) {
  const address = socketURL(url);
  let stopped = false;
  let pollTimer = null;
  let socket = null;

  function startPolling() {
    if (pollTimer || stopped) return;
    onStatus('polling');
    poll();
    pollTimer = setInterval(poll, interval);
  }

  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function connect() {
    if (stopped) return;
    try {
      socket = new WebSocket(address);
    } catch {
      startPolling();
      return;
    }
    socket.addEventListener('open', () => {
      stopPolling();
      onStatus('live');
    });
    socket.addEventListener('message', (event) => {
      try { onMessage?.(JSON.parse(event.data)); } catch { /* not ours */ }
    });
    socket.addEventListener('close', (event) => {
      if (stopped) return;
      startPolling();
      // 1012: the server is restarting on purpose (another instance is there behind a proxy);
      // come back soon, spread over a second so every page does not arrive at once.
      const delay = event.code === RESTART ? 500 + Math.random() * 1000 : reconnectDelay;
      setTimeout(connect, delay);
    });
  }

  window.addEventListener('pagehide', () => { stopped = true; });
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    stopped = false;
    connect();
  });
  connect();

  return {
    /** Stops following: no more polls, no reconnecting, the socket closed. */
    stop() {
      stopped = true;
      stopPolling();
      socket?.close();
    },
    /** True after `stop()` or once the page is being left, until a back/forward-cache resume. */
    get stopped() { return stopped; },
    /** Sends `data` as JSON when the socket is open; false (nothing sent) when it is not. */
    send(data) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(data));
      return true;
    },
  };
}
