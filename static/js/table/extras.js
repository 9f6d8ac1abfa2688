// Small helpers of the table page that keep time or make noise: the clock text of a countdown,
// the turn alert (a short tone, switched on/off and remembered in localStorage), and the ticker
// that refreshes every countdown on the page once a second without re-rendering the table.
import { t } from "../i18n.js";

const SOUND_KEY = "prefclub.turnSound";
/** The move timer's choices (seconds; 0: no timer) in the practice form and the club setting. */
export const TIMER_CHOICES = [0, 30, 60, 120, 300];

/** "no timer" or "60 s per move". */
export function timerChoice(seconds) {
  return seconds ? t("timer.seconds", { s: seconds }) : t("timer.off");
}

/** "1:05" for 65 seconds (never negative). */
export function clock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

export function setSound(on) {
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch { /* storage off: the choice lasts for this page only */ }
}

let audio = null;

/** A short two-note tone (Web Audio; silently nothing where audio is not allowed). */
export function beep() {
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [[0, 660], [1, 880]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.12, now + i * 0.14);
      gain.gain.exponentialRampToValueAtTime(0.001, now + i * 0.14 + 0.13);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.14);
      osc.stop(now + i * 0.14 + 0.14);
    }
  } catch { /* no audio */ }
}

/**
 * Refresh every `[data-deadline]` (a countdown to an ISO time / epoch ms) and `[data-since]`
 * (time elapsed since) element under `root`: its text is `t(data-key, {s, name})`.
 */
export function tick(root) {
  const now = Date.now();
  for (const el of root.querySelectorAll("[data-deadline]")) {
    const left = (Number(el.dataset.deadline) - now) / 1000;
    el.textContent = t(el.dataset.key, { s: clock(left), name: el.dataset.name || "" });
  }
  for (const el of root.querySelectorAll("[data-since]")) {
    const gone = (now - Number(el.dataset.since)) / 1000;
    el.textContent = t(el.dataset.key, { s: clock(gone), name: el.dataset.name || "" });
  }
}
