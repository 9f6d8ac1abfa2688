// Tiny DOM helpers: h() builds elements, clear() empties one.

/**
 * Build an element. `attrs`: `class`, `text`, `on<event>` handlers, `dataset`, booleans
 * (`disabled`, `hidden`, ...) and plain attributes. Children: nodes, strings, arrays, null.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Build an SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key === "text") el.textContent = value;
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child) el.append(child);
  }
  return el;
}

let clubZone;

/** Show times in the club's time zone (from /api/ui/config) rather than the browser's. */
export function setClubZone(zone) {
  clubZone = zone || undefined;
}

export function fmtTime(iso, withDate = false) {
  if (!iso) return "";
  const d = new Date(iso);
  const opts = { hour: "2-digit", minute: "2-digit", timeZone: clubZone };
  if (withDate) Object.assign(opts, { weekday: "short", day: "numeric", month: "short" });
  return d.toLocaleString(document.documentElement.lang || "ru", opts);
}
