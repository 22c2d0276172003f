// The page's transport under `engine gui`: the session is the server's, reached by fetch and
// an EventSource (routes in docs/gui.md). The other home, the static site, has the same
// interface in transport-local.js (the session in WebAssembly, the engine in a worker).
//
// The interface both transports implement:
// request(name, body) -> Promise<State>. name: 'state' (no body), 'move' {move}, 'new' NewGame,
//   'undo' {}, 'resign' {}, 'goto' {node}, 'analysis' {on, multipv}, 'mate' {movetime_ms}, 'review' {nodes},
//   'puzzle_start' {id, sfen, moves}, 'puzzle_hint' {}, 'puzzle_solution' {}, 'puzzle_end' {}.
//   Rejects with an Error whose message is the session's error text and whose .status is
//   the HTTP-like status (400 bad input, 409 not now — e.g. the engine is to move).
// preview(node, moves) -> Promise<BoardView>: the position after playing the USI `moves`
//   from node `node`; BoardView = {sfen, board, hands, side_to_move, last_move} (same shapes as State).
// setup(position) -> Promise<{sfen, view, problem}>: the position editor's position checked by
//   the rules; position = {board, hands, side_to_move} in the shapes of a BoardView, or
//   {start: true} for the usual start; sfen and view (a BoardView) when it can be played, else
//   problem = {code, side, kind, file, count, text} (docs/gui.md).
// loadRecord(bytes: Uint8Array, format: 'kif'|'kifu'|'csa'|'usi'|'auto') -> Promise<State>.
// saveRecord(format: 'kif'|'kifu'|'csa'|'usi') -> Promise<{bytes: Uint8Array, filename, type}>;
//   the page turns it into a download (Blob + a temporary <a download>).
// subscribe({state, info, mate}) -> void: calls the handlers with each event's parsed JSON,
//   in order; the current state first. An optional `error` handler hears of trouble with the
//   stream (here: the EventSource's reconnections); a transport may never call it.

const ROUTES = {
  state: ['GET', '/api/state'],
  move: ['POST', '/api/move'],
  new: ['POST', '/api/new'],
  undo: ['POST', '/api/undo'],
  resign: ['POST', '/api/resign'],
  goto: ['POST', '/api/goto'],
  analysis: ['POST', '/api/analysis'],
  mate: ['POST', '/api/mate'],
  review: ['POST', '/api/review'],
  puzzle_start: ['POST', '/api/puzzle/start'],
  puzzle_hint: ['POST', '/api/puzzle/hint'],
  puzzle_solution: ['POST', '/api/puzzle/solution'],
  puzzle_end: ['POST', '/api/puzzle/end'],
};

function failure(message, status) {
  const error = new Error(message);
  error.status = status;
  return error;
}

// `token`: the session's, from the page's <meta name="token">.
export function httpTransport(token) {
  // Paths are absolute: the server's routes sit at its root, wherever the page is.
  async function send(method, path, body, contentType) {
    const options = { method, headers: { 'X-Token': token } };
    if (body !== undefined) {
      options.body = body;
      options.headers['Content-Type'] = contentType;
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (e) {
      throw failure(String(e), 0);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      let message = `${response.status} ${response.statusText}`;
      try { message = JSON.parse(text).error || message; } catch (_) { /* not JSON */ }
      throw failure(message, response.status);
    }
    return response;
  }

  const sendJson = async (method, path, body) => {
    const response = await send(method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json');
    return response.json();
  };

  return {
    request(name, body) {
      const route = ROUTES[name];
      if (!route) return Promise.reject(failure(`no request named '${name}'`, 400));
      const [method, path] = route;
      return sendJson(method, path, method === 'GET' ? undefined : (body ?? {}));
    },

    preview(node, moves) {
      return sendJson('POST', '/api/preview', { node, moves });
    },

    setup(position) {
      return sendJson('POST', '/api/setup', position);
    },

    async loadRecord(bytes, format) {
      const path = `/api/record?format=${encodeURIComponent(format)}`;
      const response = await send('POST', path, bytes, 'application/octet-stream');
      return response.json();
    },

    async saveRecord(format) {
      const response = await send('GET', `/api/record?format=${encodeURIComponent(format)}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const disposition = response.headers.get('Content-Disposition') || '';
      const named = /filename="([^"]+)"/.exec(disposition);
      return {
        bytes,
        filename: named ? named[1] : `game.${format}`,
        type: response.headers.get('Content-Type') || 'application/octet-stream',
      };
    },

    // EventSource sends no headers: the token goes in the URL.
    subscribe(handlers) {
      const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
      for (const name of ['state', 'info', 'mate']) {
        source.addEventListener(name, (event) => {
          let data;
          try { data = JSON.parse(event.data); } catch (_) { return; }
          if (handlers[name]) handlers[name](data);
        });
      }
      source.addEventListener('error', () => { if (handlers.error) handlers.error(); });
    },
  };
}
