// The table socket (docs/protocol.md): hello with the last seq seen, replies matched by id,
// reconnect with backoff, resync when a heartbeat shows missed events.

let counter = 0;

export function commandId(prefix = "c") {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}${counter}`;
}

export class TableSocket {
  /**
   * `handlers`: message(msg) for every server message, status(state) with "connecting",
   * "open", "down", "flooded" (closed with 4429, over the frame budget: retried after 2 s) or
   * "replaced" (closed with 4409 for a newer socket of the member: not retried); `lastSeq()` returns the last seq the page has processed (or null).
   */
  constructor(tableId, handlers, lastSeq) {
    this.tableId = tableId;
    this.handlers = handlers;
    this.lastSeq = lastSeq;
    this.ws = null;
    this.closed = false;
    this.failures = 0;
    this.timer = null;
  }

  connect() {
    if (this.closed) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.handlers.status("connecting");
    const ws = new WebSocket(`${scheme}://${location.host}/ws/tables/${this.tableId}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.failures = 0;
      ws.send(JSON.stringify({ type: "hello", last_seq: this.lastSeq() }));
      this.handlers.status("open");
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "heartbeat" && this.lastSeq() !== null && msg.seq > this.lastSeq()) {
        this.reconnect();
        return;
      }
      this.handlers.message(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (event.code === 4401) {
        // The session was revoked (logout, deactivation, expiry): log in again, never retry.
        this.closed = true;
        location.hash = "#/login";
        return;
      }
      if (event.code === 4409) {
        // A newer socket of the same member took this one's place (another tab): never retry,
        // or the two tabs would close each other for ever.
        this.closed = true;
        this.handlers.status("replaced", event.code);
        return;
      }
      this.handlers.status(event.code === 4429 ? "flooded" : "down", event.code);
      this.failures += 1;
      const delay = event.code === 4008 ? 100
        : Math.max(event.code === 4429 ? 2000 : 0, Math.min(500 * 2 ** (this.failures - 1), 8000));
      this.timer = setTimeout(() => this.connect(), delay);
    });
  }

  reconnect() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    clearTimeout(this.timer);
    this.connect();
  }

  /** Send a command; returns its id (the answer carries the same id). */
  send(command) {
    const id = command.id || commandId(command.type === "last_trick" ? "t" : "c");
    const body = { ...command, id };
    const seq = this.lastSeq();
    if (seq !== null && !["ping", "last_trick", "chat"].includes(command.type)) body.seq = seq;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(body));
      return id;
    }
    return null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
