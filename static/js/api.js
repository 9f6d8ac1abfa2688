// HTTP to the club server: JSON in and out, the CSRF header on every state-changing request,
// and errors as ApiError with a message a person can read and the server's stable code.
// While the server is unavailable (503 database_unavailable, a gateway error, no network) a
// banner says so: reads wait and retry (honouring Retry-After) until it answers again; other
// requests fail at once, since repeating them is not always safe, and the banner stays until
// /healthz answers.
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, message, code = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

const UNAVAILABLE = new Set([0, 502, 503, 504]);
const MAX_WAIT_MS = 10000;
let polling = false;

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Show or hide the "server unavailable, retrying" banner. */
function unavailable(on) {
  let banner = document.getElementById("unavailable");
  if (!on) {
    if (banner) {
      banner.hidden = true;
      banner.style.display = "none"; // .notice sets display, which beats [hidden]
    }
    return;
  }
  if (!banner) {
    banner = document.createElement("div");
    banner.id = "unavailable";
    banner.className = "notice notice-error";
    banner.setAttribute("role", "status");
    banner.setAttribute("aria-live", "polite");
    document.body.prepend(banner);
  }
  banner.textContent = t("err.unavailable");
  banner.hidden = false;
  banner.style.display = "";
}

function waitFor(err, attempt) {
  const asked = err.retryAfter ? err.retryAfter * 1000 : 0;
  return Math.min(Math.max(asked, 500 * 2 ** attempt), MAX_WAIT_MS);
}

/** Poll /healthz until the server answers again, then hide the banner. */
async function pollUntilBack() {
  if (polling) return;
  polling = true;
  try {
    for (let attempt = 0; ; attempt += 1) {
      await sleep(Math.min(1000 * 2 ** attempt, MAX_WAIT_MS));
      try {
        if ((await fetch("/healthz", { cache: "no-store" })).ok) break;
      } catch {
        // still down
      }
    }
    unavailable(false);
  } finally {
    polling = false;
  }
}

export function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

function describe(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    // FastAPI validation errors: [{loc: [...], msg: "..."}]
    return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  }
  return JSON.stringify(detail);
}

/** Send a request; resolve with the parsed JSON body (or null), reject with ApiError. */
export async function api(method, path, body) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const data = await sendOnce(method, path, body);
      if (attempt > 0) unavailable(false);
      return data;
    } catch (err) {
      if (!(err instanceof ApiError) || !UNAVAILABLE.has(err.status)) throw err;
      unavailable(true);
      if (method !== "GET") {
        pollUntilBack();
        throw err;
      }
      await sleep(waitFor(err, attempt));
    }
  }
}

async function sendOnce(method, path, body) {
  try {
    return await send(method, path, body);
  } catch (err) {
    // The server commits a new session just after answering the login, so a read sent at once
    // may not see it yet: one quiet retry of a read that was refused as "not logged in".
    if (err instanceof ApiError && err.status === 401 && method === "GET") {
      await new Promise((resolve) => { setTimeout(resolve, 200); });
      return send(method, path, body);
    }
    throw err;
  }
}

async function send(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (!["GET", "HEAD"].includes(method)) {
    const csrf = cookie("prefclub_csrf");
    if (csrf) headers["X-CSRF-Token"] = csrf;
  }
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, t("err.network"));
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text };
    }
  }
  if (!response.ok) {
    let message = data && data.detail !== undefined ? describe(data.detail) : response.statusText;
    if (response.status === 429) {
      const wait = response.headers.get("Retry-After");
      if (wait) message += ` (${t("err.retry", { s: wait })})`;
    }
    if (response.status === 503 && !(data && data.detail)) message = t("err.unavailable");
    const retry = Number(response.headers.get("Retry-After")) || null;
    throw new ApiError(response.status, message, data && data.code ? data.code : null, retry);
  }
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);
