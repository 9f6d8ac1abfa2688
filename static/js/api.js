// HTTP to the club server: JSON in and out, the CSRF header on every state-changing request,
// and errors as ApiError with a message a person can read.
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
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
    throw new ApiError(response.status, message);
  }
  return data;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);
