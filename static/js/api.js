// HTTP to the club server: JSON in and out, the CSRF header on every state-changing request,
// and errors as ApiError with a message a person can read — in the player's language, from the
// error's stable machine `code` (never the server's English `detail` on a Russian page).
// While the server is unavailable (503 database_unavailable, a gateway error, no network) a
// banner says so: reads wait and retry (honouring Retry-After) until it answers again; other
// requests fail at once, since repeating them is not always safe, and the banner stays until
// /readyz answers (the database is back and at the schema this code needs).
import { lang, t } from "./i18n.js";

/** A refused request: `status`, the server's `code` and `params`, and the English `detail`. */
export class ApiError extends Error {
  constructor(status, message, { code = null, params = null, detail = null, retryAfter = null } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.params = params;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

/** The generic code of an HTTP status, for answers that carry no code of their own. */
function statusCode(status) {
  if (status === 0) return "network";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 422) return "validation";
  if (status === 429) return "too_many";
  if (status === 503) return "busy";
  if (status >= 500) return "server";
  return "bad_request";
}

/**
 * The text a person reads for a server error, by its code, in the page's language: the
 * catalogue's `err.code.<code>` (filled with the error's params), else the generic text of its
 * HTTP status. The English `detail` is shown only on an English page, and only when the
 * catalogue has nothing precise for the code.
 */
export function errorText(status, code, params = null, detail = null) {
  const vars = params && typeof params === "object" ? params : {};
  const field = code === "invalid_input" ? fieldErrorText(vars) : code === "invalid_entry" ? entryErrorText(vars) : null;
  if (field) return field;
  if (code && !GENERIC.has(code)) {
    const key = `err.code.${code}`;
    if (t(key) !== key) return t(key, vars);
  }
  if (lang() === "en" && typeof detail === "string" && detail) return detail;
  const key = `err.code.${code}`;
  return code && t(key) !== key ? t(key, vars) : t(`err.code.${statusCode(status)}`, vars);
}

/**
 * A 422 `invalid_input` in words: its params name the first field at fault, the problem and the
 * limit (app/api/field_errors.py), e.g. «Имя: не длиннее 100 символов». The field's name comes
 * from the catalogue's `field.<name>` (else the name as sent); null when the params say nothing.
 */
function fieldErrorText(params) {
  if (typeof params.field !== "string" || typeof params.problem !== "string") return null;
  const fieldKey = `field.${params.field}`;
  const name = t(fieldKey) === fieldKey ? params.field : t(fieldKey);
  const key = `err.input.${params.problem}`;
  const vars = { field: name, limit: params.limit ?? "" };
  return t(key) === key ? t("err.input.invalid", vars) : t(key, vars);
}

/**
 * A recorded deal that could not have happened (422 `invalid_entry`), by the deal field at fault
 * (`params.field`, app/services/recording.py) and its figures: «Такой сдачи быть не могло:
 * взятки в сумме 11, а их всегда 10.»; null for a field the catalogue has no words for.
 */
function entryErrorText(params) {
  if (typeof params.field !== "string") return null;
  const key = params.field === "tricks" && Number.isInteger(params.total) ? "err.entry.tricksSum" : `err.entry.${params.field}`;
  return t(key) === key ? null : t(key, params);
}

/**
 * Refusals the server answers without a precise code (or with a generic one) that mean one thing
 * at one address: a 401 from the login is a wrong password, not an expired session.
 */
const CONTEXT_CODES = {
  "POST /api/auth/login": { 401: "login_failed", 403: "account_inactive" },
  "POST /api/auth/password": { 403: "wrong_password" },
  "POST /api/auth/password-reset": { 400: "reset_invalid", 403: "account_inactive" },
};

/** Codes that only say what kind of refusal it was: the English detail says more. */
const GENERIC = new Set(["bad_request", "validation", "forbidden", "not_found", "conflict",
  "unauthorized", "server"]);

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

/** Poll /readyz until the server can serve again, then hide the banner. */
async function pollUntilBack() {
  if (polling) return;
  polling = true;
  try {
    for (let attempt = 0; ; attempt += 1) {
      await sleep(Math.min(1000 * 2 ** attempt, MAX_WAIT_MS));
      try {
        if ((await fetch("/readyz", { cache: "no-store" })).ok) break;
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
  } catch {
    throw new ApiError(0, t("err.network"), { code: "network" });
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
    const detail = data && data.detail !== undefined ? describe(data.detail) : response.statusText;
    let code = data && typeof data.code === "string" ? data.code : null;
    if (!code || GENERIC.has(code)) code = CONTEXT_CODES[`${method} ${path}`]?.[response.status] ?? code;
    const params = data && data.params && typeof data.params === "object" ? data.params : null;
    let message = errorText(response.status, code, params, detail);
    if (response.status === 429) {
      const wait = response.headers.get("Retry-After");
      if (wait) message += ` (${t("err.retry", { s: wait })})`;
    }
    if (response.status === 503 && !(data && data.code)) message = t("err.unavailable");
    const retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw new ApiError(response.status, message, { code, params, detail, retryAfter });
  }
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const put = (path, body) => api("PUT", path, body);
export const del = (path) => api("DELETE", path);
