// One part of the table page (issue 28, «Speed of the page»): it owns one place on the page and
// redraws it only when the slice of the state it is drawn from has changed, so a chat line or a
// presence change does not rebuild the hand or the bidding box. While the part shows nothing its
// place is kept by an empty comment, so the parts keep their order without wrapper elements.

/** The signature of a part's slice: equal signatures draw the same elements. */
export function signature(slice) {
  return JSON.stringify(slice) ?? "";
}

/**
 * A part drawn by `draw(slice)` (an element, or null for nothing) from `slice()`, plain data
 * holding everything the drawing reads. `node` is what to put on the page once; `update(force)`
 * redraws it when the slice's signature changed (or when forced) and says whether it did.
 */
export function part(slice, draw) {
  const anchor = document.createComment("");
  let shown = anchor;
  let last = null;
  return {
    get node() {
      return shown;
    },
    update(force = false) {
      const data = slice();
      const key = signature(data);
      if (!force && key === last) return false;
      last = key;
      const next = draw(data) ?? anchor;
      if (next !== shown) {
        shown.replaceWith(next);
        shown = next;
      }
      return true;
    },
  };
}

/** Update every part of `parts` (forced: all of them); true when any was redrawn. */
export function updateAll(parts, force = false) {
  let redrawn = false;
  for (const one of parts) redrawn = one.update(force) || redrawn;
  return redrawn;
}
